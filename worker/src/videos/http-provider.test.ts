// HttpVideoProvider against the video service stand-in (scripts/video-provider-stand-in.ts: real
// HTTP, a real ffmpeg render on its side) and the real probe/transcode on ours; no database or
// Redis. Also the VIDEO_PROVIDER_* settings (docs/videos-provider.md).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { probeVideo } from '@server/core/media/ffmpeg';
import { INTENT_INFO, JobError } from '@shared/index';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startVideoProviderStandIn, type VideoProviderStandIn } from '../../../scripts/video-provider-stand-in';
import { HttpVideoProvider, progressFraction } from './http-provider';
import { createVideoProvider, loadVideoProviderConfig } from './provider-config';
import type { IntroInput, RenderOptions } from './video-provider';

const API_KEY = 'sk-stand-in-0123456789abcdef';
const POLL_MS = 100;

let picture: Buffer;
const introInput = (extra: Partial<IntroInput> = {}): IntroInput => ({
  intent: 'platonic',
  displayName: 'Ada Listener',
  tagline: 'Looking for friends',
  taglineKind: 'generic',
  matchPercentage: 95,
  picture,
  podcasts: [
    { name: 'The Stand-In Hour', creator: 'Local Radio', artwork: null },
    { name: 'Paging Through History', creator: null, artwork: null },
  ],
  narration: 'Hi, I am Ada. I listen to The Stand-In Hour.',
  ...extra,
});

/** Render options that record what the provider reports, in order. */
function recorder(workDir: string, signal = new AbortController().signal) {
  const events: ({ kind: 'submitted' } | { kind: 'progress'; fraction: number })[] = [];
  const options: RenderOptions = {
    workDir,
    signal,
    onSubmitted: () => {
      events.push({ kind: 'submitted' });
    },
    onProgress: (fraction) => {
      events.push({ kind: 'progress', fraction });
    },
  };
  const fractions = () => events.flatMap((e) => (e.kind === 'progress' ? [e.fraction] : []));
  return { events, options, fractions };
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('HttpVideoProvider', () => {
  let standIn: VideoProviderStandIn;
  let workDir: string;
  const provider = (extra: Partial<ConstructorParameters<typeof HttpVideoProvider>[0]> = {}) =>
    new HttpVideoProvider({ baseUrl: standIn.url, apiKey: API_KEY, pollMs: POLL_MS, timeoutMs: 60_000, ...extra });

  beforeAll(async () => {
    picture = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#3465a4' } })
      .png()
      .toBuffer();
    standIn = await startVideoProviderStandIn({ apiKey: API_KEY });
  });
  afterAll(async () => {
    await standIn?.close();
  });
  beforeEach(async () => {
    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-http-provider-'));
    standIn.behaviour.failWith = null;
    standIn.behaviour.result = 'video';
    standIn.behaviour.contentLength = true;
  });
  afterEach(async () => {
    await fs.rm(workDir, { recursive: true, force: true });
  });

  it('sends the intro, follows progress, and answers a 720x1280 H.264 video with a poster', async () => {
    const { events, options, fractions } = recorder(workDir);
    const before = standIn.requests.length;
    const result = await provider().render(introInput(), options);

    const probe = await probeVideo(result.videoPath, { timeoutMs: 10_000 });
    expect(probe).toMatchObject({ width: 720, height: 1280, videoCodec: 'h264' });
    expect(probe.durationSeconds).toBeGreaterThan(2);
    expect(result.durationSeconds).toBeCloseTo(probe.durationSeconds, 0);
    expect(path.relative(workDir, result.videoPath).startsWith('..')).toBe(false);
    expect(path.relative(workDir, result.posterPath).startsWith('..')).toBe(false);
    expect((await fs.stat(result.posterPath)).size).toBeGreaterThan(0);
    const poster = await sharp(result.posterPath).metadata();
    expect(poster.format).toBe('jpeg');

    // Submitted exactly once, before any progress; progress never goes back and ends at 1.
    expect(events.filter((e) => e.kind === 'submitted')).toHaveLength(1);
    expect(events[0]?.kind).toBe('submitted');
    const seen = fractions();
    expect(seen.length).toBeGreaterThan(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
    expect(seen.every((f) => f >= 0 && f <= 1)).toBe(true);
    expect(seen.at(-1)).toBe(1);

    // What the service received: the contract's body, with the bearer key.
    const [post] = standIn.requests.slice(before).filter((r) => r.method === 'POST');
    expect(post?.authorized).toBe(true);
    expect(post?.body).toMatchObject({
      intent: 'platonic',
      displayName: 'Ada Listener',
      tagline: 'Looking for friends',
      matchPercentage: 95,
      script: 'Hi, I am Ada. I listen to The Stand-In Hour.',
      podcasts: [
        { name: 'The Stand-In Hour', creator: 'Local Radio' },
        { name: 'Paging Through History', creator: null },
      ],
      theme: { primary: INTENT_INFO.platonic.videoColors[0], secondary: INTENT_INFO.platonic.videoColors[1] },
      format: { width: 720, height: 1280, maxSeconds: 30 },
    });
    expect((post?.body as { pictureDataUrl?: string } | undefined)?.pictureDataUrl).toMatch(/^data:image\/png;base64,/);
  });

  it('leaves the picture out when there is none', async () => {
    standIn.behaviour.failWith = 'stop early';
    const before = standIn.requests.length;
    await rejection(provider().render(introInput({ picture: null }), recorder(workDir).options));
    const [post] = standIn.requests.slice(before).filter((r) => r.method === 'POST');
    expect(post?.body).not.toHaveProperty('pictureDataUrl');
  });

  it('reports a wrong API key clearly, without the key', async () => {
    const wrongKey = 'sk-wrong-key-should-never-be-logged';
    const { events, options } = recorder(workDir);
    const error = await rejection(provider({ apiKey: wrongKey }).render(introInput(), options));
    expect(error).toBeInstanceOf(JobError);
    expect(error.message).toMatch(/refused our API key \(HTTP 401\)/);
    expect(error.message).toContain('VIDEO_PROVIDER_API_KEY');
    expect(error.message).not.toContain(wrongKey);
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(wrongKey);
    expect((error as JobError).final).toBe(true);
    expect(events).toEqual([]);
  });

  it("rejects with the service's message when the video fails", async () => {
    const { events, options } = recorder(workDir);
    const error = await rejection(provider().render(introInput({ displayName: 'FAIL' }), options));
    expect(error.message).toContain('The stand-in was told to fail this video');
    expect(events[0]?.kind).toBe('submitted');
  });

  it('stops at once when aborted while it waits to poll', async () => {
    const controller = new AbortController();
    const { options } = recorder(workDir, controller.signal);
    // Aborted just after the submission, while it waits for its first poll: a provider that slept on
    // would only notice a minute later, after the test's own timeout.
    options.onSubmitted = () => {
      setImmediate(() => controller.abort(new Error('worker shutting down')));
    };
    const error = await rejection(provider({ pollMs: 60_000 }).render(introInput(), options));
    expect(error.message).toBe('worker shutting down');
  });

  it('stops polling when aborted', async () => {
    // Videos that stay 'processing' (with new progress at each poll) for longer than the renders below
    // poll: both stop by being aborted.
    const slow = await startVideoProviderStandIn({ apiKey: API_KEY, processingPolls: 20 });
    const pollsOf = (id: string) => slow.requests.filter((r) => r.method === 'GET' && r.path === `/v1/videos/${id}`);
    const slowProvider = new HttpVideoProvider({ baseUrl: slow.url, apiKey: API_KEY, pollMs: POLL_MS });
    try {
      const controller = new AbortController();
      const { options } = recorder(workDir, controller.signal);
      // Abort as soon as the service reports processing.
      options.onProgress = () => controller.abort(new Error('worker shutting down'));
      const error = await rejection(slowProvider.render(introInput(), options));
      expect(error.message).toBe('worker shutting down');
      const [aborted] = slow.requests.filter((r) => r.method === 'GET').map((r) => r.path.split('/').at(-1) as string);
      expect(pollsOf(aborted as string)).toHaveLength(1);

      // Instead of a sleep: another render polls the same service three times at the same pace, after
      // the abort; the aborted one, had it gone on, would have polled meanwhile.
      const sentinel = new AbortController();
      const second = recorder(workDir, sentinel.signal);
      let polled = 0;
      second.options.onProgress = () => {
        if (++polled === 3) sentinel.abort(new Error('enough'));
      };
      await rejection(slowProvider.render(introInput(), second.options));
      expect(polled).toBe(3);
      expect(pollsOf(aborted as string)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('rejects a videoUrl that is not a video (an HTML page)', async () => {
    standIn.behaviour.result = 'html';
    const error = await rejection(provider().render(introInput(), recorder(workDir).options));
    expect(error).toBeInstanceOf(JobError);
    expect(error.message).toMatch(/not a readable video/);
  });

  it('refuses a download larger than its cap, declared or not', async () => {
    const declared = await rejection(
      provider({ maxDownloadBytes: 10_000 }).render(introInput(), recorder(workDir).options),
    );
    expect(declared.message).toMatch(/larger than 10000 bytes/);
    standIn.behaviour.contentLength = false;
    const counted = await rejection(
      provider({ maxDownloadBytes: 10_000 }).render(introInput(), recorder(workDir).options),
    );
    expect(counted.message).toMatch(/larger than 10000 bytes/);
  });

  it('gives up after its overall timeout', async () => {
    const slow = await startVideoProviderStandIn({ apiKey: API_KEY, processingPolls: 1000 });
    try {
      const error = await rejection(
        new HttpVideoProvider({ baseUrl: slow.url, apiKey: API_KEY, pollMs: POLL_MS, timeoutMs: 1000 }).render(
          introInput(),
          recorder(workDir).options,
        ),
      );
      // The stand-in would finish after 1000 polls, long after the test's own timeout.
      expect(error.message).toMatch(/did not finish within 1 s/);
    } finally {
      await slow.close();
    }
  });

  it('reports an unreachable service without the key', async () => {
    const unreachable = new HttpVideoProvider({ baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, pollMs: POLL_MS });
    const error = await rejection(unreachable.render(introInput(), recorder(workDir).options));
    expect(error.message).toMatch(/could not be reached/);
    expect(error.message).not.toContain(API_KEY);
  });

  it('reads progress given as a fraction or as a percentage', () => {
    expect(progressFraction(0.25)).toBe(0.25);
    expect(progressFraction(40)).toBe(0.4);
    expect(progressFraction(100)).toBe(1);
    expect(progressFraction(250)).toBe(1);
    expect(progressFraction(-3)).toBe(0);
    expect(progressFraction(undefined)).toBe(0);
    expect(progressFraction('nonsense')).toBe(0);
  });

  it('the stand-in answers 401 without the key and 400 on a bad body', async () => {
    const unauthorized = await fetch(`${standIn.url}/v1/videos`, { method: 'POST', body: '{}' });
    expect(unauthorized.status).toBe(401);
    const headers = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const badJson = await fetch(`${standIn.url}/v1/videos`, { method: 'POST', headers, body: '{not json' });
    expect(badJson.status).toBe(400);
    const badBody = await fetch(`${standIn.url}/v1/videos`, { method: 'POST', headers, body: '{"intent":"x"}' });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toEqual({ error: expect.stringMatching(/intent/) });
  });
});

describe('loadVideoProviderConfig', () => {
  const http = {
    VIDEO_PROVIDER: 'http',
    VIDEO_PROVIDER_URL: 'https://video.example.com',
    VIDEO_PROVIDER_API_KEY: 'k-1',
  };

  it('defaults to the local renderer', () => {
    expect(loadVideoProviderConfig({})).toEqual({ kind: 'local' });
    expect(loadVideoProviderConfig({ VIDEO_PROVIDER: '' })).toEqual({ kind: 'local' });
    // The http settings are not required (nor checked) for the local renderer.
    expect(loadVideoProviderConfig({ VIDEO_PROVIDER: 'local', VIDEO_PROVIDER_POLL_MS: '' })).toEqual({ kind: 'local' });
  });

  it('reads the http provider with its defaults', () => {
    expect(loadVideoProviderConfig(http)).toEqual({
      kind: 'http',
      baseUrl: 'https://video.example.com',
      apiKey: 'k-1',
      pollMs: 2000,
      timeoutMs: 300_000,
    });
    expect(
      loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_POLL_MS: '500', VIDEO_PROVIDER_TIMEOUT_SECONDS: '60' }),
    ).toMatchObject({ pollMs: 500, timeoutMs: 60_000 });
  });

  it('requires a URL and a key for http, and names each bad setting', () => {
    expect(() => loadVideoProviderConfig({ VIDEO_PROVIDER: 'http' })).toThrow(
      'Invalid configuration:\n  VIDEO_PROVIDER_URL: required when VIDEO_PROVIDER=http\n  VIDEO_PROVIDER_API_KEY: required when VIDEO_PROVIDER=http',
    );
    expect(() => loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_URL: 'ftp://video.example.com' })).toThrow(
      /VIDEO_PROVIDER_URL: must be an http\(s\) URL/,
    );
    expect(() => loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_URL: 'not a url' })).toThrow(/VIDEO_PROVIDER_URL/);
    expect(() => loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_API_KEY: '  ' })).toThrow(/VIDEO_PROVIDER_API_KEY/);
    expect(() => loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_POLL_MS: '10' })).toThrow(/VIDEO_PROVIDER_POLL_MS/);
    expect(() => loadVideoProviderConfig({ ...http, VIDEO_PROVIDER_TIMEOUT_SECONDS: 'soon' })).toThrow(
      /VIDEO_PROVIDER_TIMEOUT_SECONDS/,
    );
    expect(() => loadVideoProviderConfig({ VIDEO_PROVIDER: 'vendor' })).toThrow(/VIDEO_PROVIDER:/);
  });

  it('never puts the key into its error', () => {
    const secret = 'sk-secret-value-9876';
    const error = (() => {
      try {
        loadVideoProviderConfig({ VIDEO_PROVIDER: 'http', VIDEO_PROVIDER_API_KEY: secret, VIDEO_PROVIDER_URL: 'x' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toMatch(/VIDEO_PROVIDER_URL/);
    expect(error?.message).not.toContain(secret);
  });

  it('creates the configured provider', () => {
    expect(createVideoProvider({ kind: 'local' }).name).toBe('local');
    expect(createVideoProvider(loadVideoProviderConfig(http))).toBeInstanceOf(HttpVideoProvider);
  });
});
