// An external AI video service as the VideoProvider (VIDEO_PROVIDER=http, docs/videos-provider.md).
// The contract is the generic "create a video, then poll it" shape of services like HeyGen or
// Synthesia; a real vendor's API is mapped to it by a small adapter service:
//   POST {baseUrl}/v1/videos      Authorization: Bearer <key>, JSON intro data   → 201/202 {id}
//   GET  {baseUrl}/v1/videos/{id} every pollMs → {id, status, progress?, videoUrl?, error?}
//   GET  videoUrl                 the finished file: downloaded, probed and transcoded by us, so
//                                 whatever the service makes becomes our 720x1280 H.264 MP4 + poster.
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { sniffImageType } from '@server/core/artwork/image-type';
import { probeVideo, transcodeToVertical } from '@server/core/media/ffmpeg';
import { INTENT_INFO, JobError } from '@shared/index';
import type { IntroInput, RenderedIntro, RenderOptions, VideoProvider } from './video-provider';

export interface HttpVideoProviderOptions {
  /** The service's root, e.g. https://video.example.com (paths /v1/videos are appended). */
  baseUrl: string;
  apiKey: string;
  /** Pause between status polls. */
  pollMs?: number;
  /** The whole render (submit, processing, download) must finish within this. */
  timeoutMs?: number;
  /** One HTTP request (not the download's body) must answer within this. */
  requestTimeoutMs?: number;
  /** The downloaded file is refused beyond this size. */
  maxDownloadBytes?: number;
}

/** What the service reports for a video (GET /v1/videos/{id}). */
interface VideoStatus {
  id?: unknown;
  status?: unknown;
  progress?: unknown;
  videoUrl?: unknown;
  error?: unknown;
}

/** The intro's format we ask for; anything else that comes back is fitted by transcodeToVertical. */
export const REQUESTED_FORMAT = { width: 720, height: 1280, maxSeconds: 30 } as const;
/** The downloaded file may run slightly over maxSeconds (encoder rounding); the transcode cuts at 30 s. */
const MAX_SOURCE_SECONDS = 31;
/** Share of the progress bar for the service's own work; download and transcode take the rest. */
const SERVICE_SHARE = 0.8;
/** Consecutive failed polls (network errors, 5xx, 429) tolerated before giving up. */
const MAX_POLL_FAILURES = 3;
const PICTURE_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp']);

export class HttpVideoProvider implements VideoProvider {
  readonly name = 'http';
  private readonly baseUrl: URL;
  private readonly apiKey: string;
  private readonly pollMs: number;
  private readonly timeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly maxDownloadBytes: number;

  constructor(options: HttpVideoProviderOptions) {
    // A trailing slash makes relative resolution keep the base's path (https://host/api/ + v1/videos).
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    if (!/^https?:$/.test(this.baseUrl.protocol)) throw new Error('The video service URL must be http(s).');
    this.apiKey = options.apiKey;
    this.pollMs = options.pollMs ?? 2000;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxDownloadBytes = options.maxDownloadBytes ?? 60 * 1024 * 1024;
  }

  async render(input: IntroInput, options: RenderOptions): Promise<RenderedIntro> {
    const { signal } = options;
    signal.throwIfAborted();
    // The caller's signal (shutdown, cancel) or our overall deadline, whichever comes first.
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const overall = AbortSignal.any([signal, deadline]);
    const stopped = () => {
      signal.throwIfAborted();
      if (deadline.aborted) {
        throw new JobError(
          'provider_unavailable',
          `The video service did not finish within ${Math.round(this.timeoutMs / 1000)} s.`,
        );
      }
    };

    let reported = -1;
    const progress = async (fraction: number) => {
      // Never backwards (a service may report 0.5 then 0.4) and never the same value twice.
      const next = Math.min(1, Math.max(0, reported, fraction));
      if (next === reported) return;
      reported = next;
      await options.onProgress(next);
    };

    try {
      const id = await this.submit(input, overall);
      await options.onSubmitted();
      const videoUrl = await this.waitForVideo(id, overall, (f) => progress(f * SERVICE_SHARE));

      const downloaded = path.join(options.workDir, 'provider.mp4');
      await this.download(videoUrl, downloaded, overall);
      await progress(SERVICE_SHARE + 0.05);
      await checkVideo(downloaded);

      // Into a folder of its own: the transcode's file names cannot collide with the download.
      const outDir = path.join(options.workDir, 'provider-result');
      await fs.mkdir(outDir, { recursive: true });
      // ffmpeg reports progress without waiting for us: updates are chained (in order, one at a
      // time) and a failing one is raised after the transcode instead of going unhandled.
      let updates = Promise.resolve();
      const result = await transcodeToVertical(downloaded, outDir, {
        signal: overall,
        maxSeconds: REQUESTED_FORMAT.maxSeconds,
        onProgress: (f: number) => {
          const fraction = SERVICE_SHARE + 0.05 + Math.min(1, Math.max(0, f)) * 0.15;
          updates = updates.then(() => progress(fraction));
          updates.catch(() => {});
        },
      });
      await updates;
      await progress(1);
      return { videoPath: result.videoPath, posterPath: result.posterPath, durationSeconds: result.durationSeconds };
    } catch (error) {
      // An abort surfaces as the caller's reason; our deadline as a readable timeout.
      if (overall.aborted) stopped();
      throw this.redact(error);
    }
  }

  /** POST /v1/videos; answers the service's id for the video. */
  private async submit(input: IntroInput, signal: AbortSignal): Promise<string> {
    const [primary, secondary] = INTENT_INFO[input.intent].videoColors;
    const body = {
      intent: input.intent,
      displayName: input.displayName,
      tagline: input.tagline,
      matchPercentage: input.matchPercentage,
      script: input.narration,
      podcasts: input.podcasts.map((p) => ({ name: p.name, creator: p.creator })),
      theme: { primary, secondary },
      format: REQUESTED_FORMAT,
    };
    const picture = pictureDataUrl(input.picture);
    const json = JSON.stringify(picture ? { ...body, pictureDataUrl: picture } : body);
    const response = await this.request(new URL('v1/videos', this.baseUrl), signal, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json,
    });
    if (response.status !== 201 && response.status !== 202 && response.status !== 200) {
      throw await this.answerError('submitting the video', response);
    }
    const answer = (await readJson(response)) as { id?: unknown } | null;
    const id = answer?.id;
    // The id goes into a URL path: only plain identifiers.
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw new JobError('provider_unavailable', 'The video service accepted the video without an id.');
    }
    if (!/^[A-Za-z0-9._:-]{1,200}$/.test(String(id))) {
      throw new JobError('provider_unavailable', 'The video service answered an unusable video id.');
    }
    return String(id);
  }

  /** Polls GET /v1/videos/{id} until completed; answers the absolute videoUrl. */
  private async waitForVideo(
    id: string,
    signal: AbortSignal,
    onProgress: (fraction: number) => Promise<void>,
  ): Promise<URL> {
    const url = new URL(`v1/videos/${encodeURIComponent(id)}`, this.baseUrl);
    let failures = 0;
    for (;;) {
      await sleep(this.pollMs, signal);
      let response: Response;
      try {
        response = await this.request(url, signal, { method: 'GET' });
      } catch (error) {
        // A blip of the network is not a failed video; several in a row are.
        if (signal.aborted || ++failures >= MAX_POLL_FAILURES) throw error;
        continue;
      }
      if (response.status >= 500 || response.status === 429) {
        await response.body?.cancel();
        if (++failures >= MAX_POLL_FAILURES) throw await this.answerError('checking the video', response);
        continue;
      }
      if (!response.ok) throw await this.answerError('checking the video', response);
      failures = 0;
      const answer = ((await readJson(response)) ?? {}) as VideoStatus;
      switch (answer.status) {
        case 'queued':
          break;
        case 'processing':
          await onProgress(progressFraction(answer.progress));
          break;
        case 'completed': {
          await onProgress(1);
          return this.videoUrlOf(answer.videoUrl);
        }
        case 'failed': {
          const reason =
            typeof answer.error === 'string' && answer.error.trim() ? answer.error.trim() : 'no reason given';
          throw new JobError('unknown', `The video service failed the video: ${this.clip(reason)}`);
        }
        default:
          throw new JobError('provider_unavailable', 'The video service answered an unknown status.');
      }
    }
  }

  private videoUrlOf(value: unknown): URL {
    if (typeof value !== 'string' || !URL.canParse(value, this.baseUrl.href)) {
      throw new JobError('provider_unavailable', 'The video service completed the video without a usable videoUrl.');
    }
    const url = new URL(value, this.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new JobError('provider_unavailable', 'The video service answered a videoUrl that is not http(s).');
    }
    return url;
  }

  /** Streams videoUrl to `file`, refusing more than maxDownloadBytes. */
  private async download(url: URL, file: string, signal: AbortSignal): Promise<void> {
    // No per-request timeout: a large file on a slow link may take minutes; the overall deadline still holds.
    const response = await this.request(
      url,
      signal,
      { method: 'GET', headers: { accept: 'video/*' } },
      { authorize: url.origin === this.baseUrl.origin, timeout: false },
    );
    if (!response.ok || !response.body) throw await this.answerError('downloading the video', response);
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > this.maxDownloadBytes) {
      await response.body.cancel();
      throw new JobError('unknown', `The video service's file is larger than ${this.megabytes()}.`);
    }
    let received = 0;
    const limit = this.maxDownloadBytes;
    const tooLarge = new JobError('unknown', `The video service's file is larger than ${this.megabytes()}.`);
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(received > limit ? tooLarge : null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body as WebReadableStream), cap, createWriteStream(file), { signal });
  }

  /**
   * One request to the service with the bearer key (unless `authorize` is false: a download from
   * another host must not receive our key) and a per-request timeout. Network errors become a
   * JobError that names the host, never the key.
   */
  private async request(
    url: URL,
    signal: AbortSignal,
    init: RequestInit,
    { authorize = true, timeout = true } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    if (authorize) headers.set('authorization', `Bearer ${this.apiKey}`);
    try {
      return await fetch(url, {
        ...init,
        headers,
        signal: timeout ? AbortSignal.any([signal, AbortSignal.timeout(this.requestTimeoutMs)]) : signal,
      });
    } catch (error) {
      if (signal.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).name;
      throw new JobError('provider_unavailable', `The video service at ${url.host} could not be reached (${why}).`);
    }
  }

  /** A non-2xx answer as a JobError with the service's own message when it sent one. */
  private async answerError(doing: string, response: Response): Promise<JobError> {
    const answer = (await readJson(response).catch(() => null)) as { error?: unknown; message?: unknown } | null;
    const said = [answer?.error, answer?.message].find((v) => typeof v === 'string' && v.trim()) as string | undefined;
    const detail = said ? `: ${this.clip(said)}` : '';
    if (response.status === 401 || response.status === 403) {
      // A wrong or revoked key: retrying cannot help until the setting is fixed.
      return new JobError(
        'provider_unavailable',
        `The video service refused our API key (HTTP ${response.status}) while ${doing}; check VIDEO_PROVIDER_API_KEY${detail}`,
        { final: true },
      );
    }
    return new JobError(
      'provider_unavailable',
      `The video service answered HTTP ${response.status} while ${doing}${detail}`,
    );
  }

  /** A service's text, short and without our key (a service may echo the request back). */
  private clip(text: string): string {
    const clean = this.apiKey ? text.split(this.apiKey).join('[redacted]') : text;
    return clean.length > 300 ? `${clean.slice(0, 300)}...` : clean;
  }

  /** Errors from deeper down (ffmpeg, fs) pass through, but never with our key in their message. */
  private redact(error: unknown): unknown {
    if (this.apiKey && error instanceof Error && error.message.includes(this.apiKey)) {
      return new Error(error.message.split(this.apiKey).join('[redacted]'));
    }
    return error;
  }

  private megabytes(): string {
    const mb = this.maxDownloadBytes / (1024 * 1024);
    return mb >= 1 ? `${Math.round(mb)} MB` : `${this.maxDownloadBytes} bytes`;
  }
}

/** The file the service made must be a video of at most MAX_SOURCE_SECONDS before we spend a transcode on it. */
async function checkVideo(file: string): Promise<void> {
  let probe: Awaited<ReturnType<typeof probeVideo>>;
  try {
    probe = await probeVideo(file, { timeoutMs: 15_000 });
  } catch (error) {
    throw new JobError('unknown', "The video service's file is not a readable video.", { cause: error });
  }
  if (!probe.videoCodec || !probe.width || !probe.height) {
    throw new JobError('unknown', "The video service's file is not a readable video (no video stream).");
  }
  if (!(probe.durationSeconds > 0) || probe.durationSeconds > MAX_SOURCE_SECONDS) {
    throw new JobError(
      'unknown',
      `The video service's file lasts ${probe.durationSeconds.toFixed(1)} s (at most ${REQUESTED_FORMAT.maxSeconds} s).`,
    );
  }
}

/** The service's progress as 0..1: 0..1 is taken as a fraction, above 1 as a percentage. */
export function progressFraction(value: unknown): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return 0;
  return Math.min(1, n > 1 ? n / 100 : n);
}

/** The picture as a data: URL for the JSON body, or undefined when it is no image we know. */
function pictureDataUrl(picture: Buffer | null): string | undefined {
  if (!picture) return undefined;
  const type = sniffImageType(picture);
  if (!type || !PICTURE_TYPES.has(type)) return undefined;
  return `data:${type};base64,${picture.toString('base64')}`;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Waits ms, or rejects at once with the signal's reason when it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
