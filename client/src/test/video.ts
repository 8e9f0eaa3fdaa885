import type { Intent } from '@shared/constants';
import type { JobStatusEvent } from '@shared/events';
import type { UserPodcastEntry } from '@shared/schemas/podcasts';
import type { VideoIntrosResponse, VideoProject } from '@shared/schemas/videos';
import { vi } from 'vitest';
import { jsonResponse, mockFetch } from './utils';

export const PROJECT_ID = '6f1c2a4e-8b1d-4c3e-9f2a-0d5b7e9c1a23';
export const VIDEO_URL = '/media/videos/abc123.mp4';
export const POSTER_URL = '/media/videos/abc123-poster.jpg';

/** A project status as GET /api/video-status/:projectId answers it. */
export function makeProject(overrides: Partial<VideoProject> = {}): VideoProject {
  return {
    projectId: PROJECT_ID,
    intent: 'romantic',
    source: 'generated',
    status: 'processing',
    progress: 50,
    url: null,
    posterUrl: null,
    error: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

export function emptyIntros(): VideoIntrosResponse {
  const none = { url: null, posterUrl: null, latest: null };
  return { romantic: { ...none }, platonic: { ...none }, professional: { ...none } };
}

export function podcastEntry(id: number, name: string, overrides: Partial<UserPodcastEntry> = {}): UserPodcastEntry {
  return {
    id,
    userId: 7,
    podcastId: id,
    episodeCount: 3,
    lastListened: null,
    hidden: false,
    timesListened: id,
    lastEpisode: null,
    source: 'manual',
    podcast: { id, name, creator: 'Someone', imageUrl: null, category: null },
    ...overrides,
  } as UserPodcastEntry;
}

export function jobEvent(
  name: 'video.render' | 'media.transcode',
  state: 'active' | 'completed' | 'failed',
  progress: number,
  error?: { code: string; message: string },
): JobStatusEvent {
  return { jobId: PROJECT_ID, name, state, progress, ...(error ? { error } : {}) } as JobStatusEvent;
}

export interface VideoServer {
  /** What GET /api/video-status answers next (a status, or an HTTP error status). */
  status: VideoProject | number;
  intros: VideoIntrosResponse;
  service: { available: boolean; message: string } | number;
  podcasts: UserPodcastEntry[];
  /** What POST generate-video answers: a body with 202, or an error. */
  generate: { status: number; body: unknown };
  /** Fake-clock times (Date.now()) of every GET /api/video-status request. */
  statusTimes: number[];
  fetchMock: ReturnType<typeof mockFetch>;
}

/** A stand-in of the video API for user 7; the test changes its fields as the story goes on. */
export function videoServer(overrides: Partial<Omit<VideoServer, 'statusTimes' | 'fetchMock'>> = {}): VideoServer {
  const server = {
    status: makeProject(),
    intros: emptyIntros(),
    service: { available: true, message: 'Video service is ready' },
    podcasts: [podcastEntry(1, 'Night Shift Radio')],
    generate: { status: 202, body: { projectId: PROJECT_ID } },
    statusTimes: [] as number[],
    ...overrides,
  } as VideoServer;
  server.fetchMock = mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    if (url === '/api/video-service-status') {
      return typeof server.service === 'number'
        ? jsonResponse(
            { error: 'unavailable', message: 'Status check failed on the server' },
            { status: server.service },
          )
        : jsonResponse(server.service);
    }
    if (url === '/api/users/7/podcasts') return jsonResponse(server.podcasts);
    if (url === '/api/users/7/video-intros') return jsonResponse(server.intros);
    if (url === '/api/users/7/generate-video' && method === 'POST') {
      const { status, body } = server.generate;
      return typeof body === 'string' ? new Response(body, { status }) : jsonResponse(body, { status });
    }
    if (url.startsWith('/api/video-status/')) {
      server.statusTimes.push(Date.now());
      return typeof server.status === 'number'
        ? jsonResponse({ error: 'oops', message: 'Server error' }, { status: server.status })
        : jsonResponse(server.status);
    }
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
  return server;
}

/** The intent's current video in the owner's video list, as after a completed project. */
export function introsWithVideo(intent: Intent = 'romantic', latest: Partial<VideoProject> = {}): VideoIntrosResponse {
  const intros = emptyIntros();
  intros[intent] = {
    url: VIDEO_URL,
    posterUrl: POSTER_URL,
    latest: makeProject({
      intent,
      status: 'completed',
      progress: 100,
      url: VIDEO_URL,
      posterUrl: POSTER_URL,
      ...latest,
    }),
  };
  return intros;
}

/**
 * A detached <video> created by the code under test reports `duration` once its src is set (happy-dom
 * loads no media). URL.createObjectURL/revokeObjectURL are stubbed; the spies are returned.
 */
export function stubVideoMetadata(duration: number | (() => number)) {
  const create = document.createElement.bind(document);
  vi.spyOn(document, 'createElement').mockImplementation(((tag: string, options?: ElementCreationOptions) => {
    const element = create(tag, options);
    if (tag === 'video') {
      Object.defineProperty(element, 'duration', {
        configurable: true,
        get: () => (typeof duration === 'function' ? duration() : duration),
      });
      Object.defineProperty(element, 'src', {
        configurable: true,
        get: () => '',
        set: () => {
          queueMicrotask(() => element.dispatchEvent(new Event('loadedmetadata')));
        },
      });
    }
    return element;
  }) as typeof document.createElement);
  const createUrl = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:video-under-test');
  const revokeUrl = vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  return { createUrl, revokeUrl };
}
