import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import { type JobStatusEvent, jobErrorText } from '@shared/events';
import {
  VIDEO_PROGRESS,
  type VideoIntrosResponse,
  type VideoProject,
  type VideoStatusValue,
} from '@shared/schemas/videos';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiRequest, endpointQuery } from '@/lib/api-client';
import { onSocketConnect, useJobStatus, useSocketConnected } from '@/lib/socket';

// One place for following a video project (docs/videos.md): status arrives by 'job:status' push while
// the socket is connected; only while it is not, GET /api/video-status/:projectId is polled, with the
// interval and attempt limit of the reading (SPEC sections 4 and 9: profile 5 s x 12, setup 12 s x 15).

/** The jobs that make a video: a generated intro, or an uploaded file being transcoded. */
export type VideoJobName = 'video.render' | 'media.transcode';

export interface VideoReading {
  intervalMs: number;
  maxAttempts: number;
  /** Setup reading: while processing, each poll adds this much (from 50, capped at 90). */
  progressStep?: number;
}

export type VideoFollowState =
  | { phase: 'idle' }
  | {
      phase: 'running';
      projectId: string;
      job: VideoJobName;
      intent: Intent;
      status: VideoStatusValue;
      progress: number;
      /** Status requests made (only while the socket was down), failed ones included. */
      attempts: number;
      /** Status requests that got no OK answer. */
      failedAttempts: number;
    }
  | {
      phase: 'completed';
      projectId: string;
      job: VideoJobName;
      intent: Intent;
      /** Null until the owner's video list has the result (a push carries no url). */
      url: string | null;
      posterUrl: string | null;
    }
  | {
      phase: 'failed';
      projectId: string;
      job: VideoJobName;
      intent: Intent;
      reason: 'failed' | 'timeout';
      /** The server's or the job's text, when it gave one. */
      message: string | null;
    };

export type SettledState = Extract<VideoFollowState, { phase: 'completed' | 'failed' }>;

/** GET /api/users/:userId/video-intros: the owner's current video and newest project per intent. */
export function videoIntrosQuery(userId: number) {
  return endpointQuery(api.videoIntros, { params: { userId } });
}

/** GET /api/video-service-status. */
export function videoServiceStatusQuery() {
  return endpointQuery(api.videoServiceStatus, {});
}

export function jobOfSource(source: VideoProject['source']): VideoJobName {
  return source === 'generated' ? 'video.render' : 'media.transcode';
}

export function isUnfinished(project: VideoProject | null | undefined): project is VideoProject {
  return Boolean(project) && project?.status !== 'completed' && project?.status !== 'failed';
}

/** The status a pushed progress stands for (10 preparing, 25 submitting, 50..90 processing). */
function statusOfProgress(progress: number): VideoStatusValue {
  if (progress >= VIDEO_PROGRESS.processing) return 'processing';
  if (progress >= VIDEO_PROGRESS.submitting) return 'submitting';
  if (progress >= VIDEO_PROGRESS.preparing) return 'preparing';
  return 'queued';
}

export interface UseVideoProjectOptions {
  userId: number;
  reading: VideoReading;
  /** Called once per project when it completes or fails (toasts, selecting a tab). */
  onSettled?: (state: SettledState) => void;
}

/**
 * Follows one video project at a time: `follow(projectId, job, intent)` after a 202, `reset()` to stop.
 * Status comes by push while the socket is connected; polling starts when it disconnects and stops when
 * it connects again. A finished project also refreshes the owner's video list (the new video shows).
 */
export function useVideoProject({ userId, reading, onSettled }: UseVideoProjectOptions) {
  const queryClient = useQueryClient();
  const connected = useSocketConnected();
  const intros = useQuery({ ...videoIntrosQuery(userId), enabled: userId > 0 });
  const [state, setRendered] = useState<VideoFollowState>({ phase: 'idle' });
  // The ref is the truth for callbacks (timers, socket handlers); the state renders it.
  const current = useRef<VideoFollowState>(state);
  const settledCb = useRef(onSettled);
  useEffect(() => {
    settledCb.current = onSettled;
  });
  // Pushes for a project we do not follow yet: the worker can be faster than the 202 reaching us.
  const early = useRef(new Map<string, JobStatusEvent<VideoJobName>>());

  const set = useCallback((next: VideoFollowState) => {
    current.current = next;
    setRendered(next);
  }, []);

  const refreshIntros = useCallback(() => {
    if (userId > 0) void queryClient.invalidateQueries({ queryKey: videoIntrosQuery(userId).queryKey });
  }, [queryClient, userId]);

  const settle = useCallback(
    (next: SettledState) => {
      set(next);
      refreshIntros();
      settledCb.current?.(next);
    },
    [set, refreshIntros],
  );

  const applyEvent = useCallback(
    (event: JobStatusEvent<VideoJobName>) => {
      const s = current.current;
      if (s.phase !== 'running' || s.projectId !== event.jobId) {
        early.current.set(event.jobId, event);
        return;
      }
      if (event.state === 'completed') {
        settle({
          phase: 'completed',
          projectId: s.projectId,
          job: s.job,
          intent: s.intent,
          url: null,
          posterUrl: null,
        });
      } else if (event.state === 'failed') {
        settle({
          phase: 'failed',
          projectId: s.projectId,
          job: s.job,
          intent: s.intent,
          reason: 'failed',
          message: jobErrorText(event),
        });
      } else {
        set({ ...s, status: statusOfProgress(event.progress), progress: Math.max(s.progress, event.progress) });
      }
    },
    [set, settle],
  );

  /** A status answer (a poll, or the newest project of the video list). */
  const applyProject = useCallback(
    (project: VideoProject, attempts?: { attempts: number; failedAttempts: number }) => {
      const s = current.current;
      if (s.phase !== 'running' || s.projectId !== project.projectId) return;
      const base = { projectId: s.projectId, job: s.job, intent: s.intent };
      if (project.status === 'completed') {
        settle({ phase: 'completed', ...base, url: project.url, posterUrl: project.posterUrl });
        return;
      }
      if (project.status === 'failed' || project.error) {
        settle({ phase: 'failed', ...base, reason: 'failed', message: project.error });
        return;
      }
      const counts = attempts ?? { attempts: s.attempts, failedAttempts: s.failedAttempts };
      let progress = Math.max(s.progress, project.progress);
      // Setup reading: +3 per poll while processing, from 50 up to 90.
      if (attempts && reading.progressStep && project.status === 'processing') {
        progress = Math.min(
          VIDEO_PROGRESS.processingMax,
          Math.max(progress, Math.max(s.progress, VIDEO_PROGRESS.processing) + reading.progressStep),
        );
      }
      set({ ...s, ...counts, status: project.status, progress });
    },
    [reading.progressStep, set, settle],
  );

  const follow = useCallback(
    (
      projectId: string,
      job: VideoJobName,
      intent: Intent,
      // Where the bar starts: the setup reading starts at 'processing' 50 (the default), a resumed
      // project where it is.
      from?: Pick<VideoProject, 'status' | 'progress'>,
    ) => {
      set({
        phase: 'running',
        projectId,
        job,
        intent,
        status: from?.status ?? 'processing',
        progress: from?.progress ?? VIDEO_PROGRESS.processing,
        attempts: 0,
        failedAttempts: 0,
      });
      const missed = early.current.get(projectId);
      early.current.clear();
      if (missed) applyEvent(missed);
    },
    [set, applyEvent],
  );

  const reset = useCallback(() => set({ phase: 'idle' }), [set]);

  useJobStatus('video.render', applyEvent);
  useJobStatus('media.transcode', applyEvent);

  // The video list says the project ended (also after a reconnect, when pushes may have been missed),
  // and it has the url a pushed completion does not carry.
  useEffect(() => {
    const s = current.current;
    if (s.phase === 'idle') return;
    const entry = intros.data?.[s.intent];
    if (!entry) return;
    if (s.phase === 'running' && entry.latest?.projectId === s.projectId && !isUnfinished(entry.latest)) {
      applyProject(entry.latest);
    } else if (s.phase === 'completed' && s.url === null && entry.latest?.projectId === s.projectId) {
      set({ ...s, url: entry.latest.url ?? entry.url, posterUrl: entry.latest.posterUrl ?? entry.posterUrl });
    }
  }, [intros.data, applyProject, set]);

  // Back online: catch up on what was pushed while away (through the video list, not status polls).
  useEffect(
    () =>
      onSocketConnect(() => {
        if (current.current.phase !== 'idle') refreshIntros();
      }),
    [refreshIntros],
  );

  // Polling, only while running and the socket is down. Attempts count across reconnections.
  const running = state.phase === 'running' ? state.projectId : null;
  useEffect(() => {
    if (!running || connected) return;
    let inFlight = false;
    let stopped = false;
    const controller = new AbortController();
    const tick = async () => {
      const s = current.current;
      if (inFlight || stopped || s.phase !== 'running' || s.projectId !== running) return;
      inFlight = true;
      const attempts = s.attempts + 1;
      let failedAttempts = s.failedAttempts;
      try {
        const project = await apiRequest(
          api.videoStatus,
          { params: { projectId: running } },
          { signal: controller.signal },
        );
        if (stopped) return;
        applyProject(project, { attempts, failedAttempts });
      } catch {
        if (stopped) return;
        // A failed request is retried on the next tick; it counts as an attempt.
        failedAttempts += 1;
        const now = current.current;
        if (now.phase === 'running' && now.projectId === running) set({ ...now, attempts, failedAttempts });
      } finally {
        inFlight = false;
      }
      const after = current.current;
      if (after.phase === 'running' && after.projectId === running && attempts >= reading.maxAttempts) {
        settle({
          phase: 'failed',
          projectId: after.projectId,
          job: after.job,
          intent: after.intent,
          reason: 'timeout',
          message: null,
        });
      }
    };
    const timer = setInterval(() => void tick(), reading.intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
      controller.abort();
    };
  }, [running, connected, reading.intervalMs, reading.maxAttempts, applyProject, set, settle]);

  return { state, follow, reset, intros: intros.data as VideoIntrosResponse | undefined, connected };
}
