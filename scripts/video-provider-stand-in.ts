// A local stand-in for an external AI video service speaking the contract of
// docs/videos-provider.md (what HttpVideoProvider calls). worker/src/videos/http-provider.test.ts
// starts it on a free port; it also runs by hand, e.g. to try VIDEO_PROVIDER=http locally:
//   node --import tsx scripts/video-provider-stand-in.ts --port 5060 [--api-key stand-in-key]
// (or VIDEO_PROVIDER_STAND_IN_PORT=5060), then VIDEO_PROVIDER_URL=<printed url> and the same key.
// It prints "video provider stand-in listening on <url>" once ready.
//
// Each accepted video is rendered by a real ffmpeg (test pattern and a tone, 360x640, a few
// seconds; it does not look like an intro), reported 'processing' over a couple of polls, then
// 'completed' with a videoUrl served by the stand-in itself. A displayName of 'FAIL' (or
// behaviour.failWith) makes the video fail; behaviour.result 'html' answers an HTML page as videoUrl.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface VideoProviderStandInOptions {
  /** The bearer key every /v1 call must present (401 otherwise). */
  apiKey: string;
  port?: number;
  host?: string;
  /** Polls answered 'processing' before a video can be 'completed'. */
  processingPolls?: number;
  /** Progress as fractions 0..1 or as percentages 0..100 (real services do either). */
  progressScale?: 'fraction' | 'percent';
  /** Length of the rendered test video. */
  seconds?: number;
  /** The ffmpeg binary (default FFMPEG_PATH, else ffmpeg from PATH). */
  ffmpegPath?: string;
}

export interface StandInRequest {
  method: string;
  path: string;
  /** Whether it carried the right bearer key. */
  authorized: boolean;
  /** The parsed JSON body of a POST, when it parsed. */
  body?: unknown;
}

export interface VideoProviderStandIn {
  url: string;
  /** Every request received, in order (tests count the polls). */
  requests: StandInRequest[];
  /** Knobs for videos submitted from now on. */
  behaviour: {
    failWith: string | null;
    result: 'video' | 'html';
    /** false: the file is sent chunked, without Content-Length (the client must count bytes itself). */
    contentLength: boolean;
  };
  close(): Promise<void>;
}

interface StandInVideo {
  id: string;
  polls: number;
  /** Set when the video must fail (injected); reported after the first processing poll. */
  failWith: string | null;
  result: 'video' | 'html';
  render: 'running' | 'done' | { error: string };
}

const INTENTS = ['romantic', 'platonic', 'professional'];
const COLOR = /^#[0-9a-fA-F]{6}$/;
const MAX_BODY_BYTES = 15 * 1024 * 1024;
const FAIL_NAME = 'FAIL';

export async function startVideoProviderStandIn(options: VideoProviderStandInOptions): Promise<VideoProviderStandIn> {
  const processingPolls = options.processingPolls ?? 2;
  const scale = options.progressScale === 'percent' ? 100 : 1;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-video-stand-in-'));
  const videos = new Map<string, StandInVideo>();
  const children = new Set<ChildProcess>();
  const requests: StandInRequest[] = [];
  const behaviour: VideoProviderStandIn['behaviour'] = { failWith: null, result: 'video', contentLength: true };
  let baseUrl = '';

  const renderVideo = (video: StandInVideo) => {
    const partial = path.join(dir, `${video.id}.part.mp4`);
    const args = [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin'],
      ...['-f', 'lavfi', '-i', 'testsrc2=size=360x640:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100'],
      ...['-t', String(options.seconds ?? 3), '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
      ...['-c:a', 'aac', '-movflags', '+faststart', '-f', 'mp4', '-y', partial],
    ];
    const child = spawn(options.ffmpegPath ?? process.env.FFMPEG_PATH ?? 'ffmpeg', args, {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.add(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-500);
    });
    child.on('error', (error) => {
      video.render = { error: `ffmpeg could not start: ${error.message}` };
    });
    child.on('close', (code) => {
      children.delete(child);
      if (code !== 0) {
        if (video.render === 'running') video.render = { error: `ffmpeg exited with ${code}: ${stderr.trim()}` };
        return;
      }
      // Renamed only when complete, so a download never sees half a file.
      fs.rename(partial, path.join(dir, `${video.id}.mp4`)).then(
        () => {
          video.render = 'done';
        },
        (error: Error) => {
          video.render = { error: error.message };
        },
      );
    });
  };

  const status = (video: StandInVideo) => {
    video.polls += 1;
    const progress = Math.round((Math.min(video.polls, processingPolls) / (processingPolls + 1)) * 100) / 100;
    if (video.failWith && video.polls > 1) return { id: video.id, status: 'failed', error: video.failWith };
    if (video.polls <= processingPolls || video.render === 'running') {
      return { id: video.id, status: 'processing', progress: progress * scale };
    }
    if (video.render !== 'done') return { id: video.id, status: 'failed', error: video.render.error };
    const file = video.result === 'html' ? `${video.id}.html` : `${video.id}.mp4`;
    return { id: video.id, status: 'completed', progress: scale, videoUrl: `${baseUrl}/files/${file}` };
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const authorized = req.headers.authorization === `Bearer ${options.apiKey}`;
    const entry: StandInRequest = { method: req.method ?? 'GET', path: url.pathname, authorized };
    requests.push(entry);
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };

    // The finished files are public to whoever knows the id, like a vendor's signed download URL.
    const file = /^\/files\/([0-9a-f]{24})\.(mp4|html)$/.exec(url.pathname);
    if (req.method === 'GET' && file) {
      const video = videos.get(file[1]!);
      if (!video) return send(404, { error: 'not found' });
      if (file[2] === 'html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end('<!doctype html><html><body><h1>Your video is ready</h1></body></html>');
      }
      if (video.render !== 'done') return send(404, { error: 'not rendered' });
      const mp4 = path.join(dir, `${video.id}.mp4`);
      fs.stat(mp4).then(
        (stat) => {
          res.writeHead(200, {
            'content-type': 'video/mp4',
            ...(behaviour.contentLength ? { 'content-length': stat.size } : {}),
          });
          createReadStream(mp4).pipe(res);
        },
        () => send(404, { error: 'not found' }),
      );
      return;
    }

    if (!url.pathname.startsWith('/v1/')) return send(404, { error: 'not found' });
    if (!authorized) return send(401, { error: 'Invalid API key' });

    if (req.method === 'POST' && url.pathname === '/v1/videos') {
      readBody(req).then(
        (raw) => {
          let body: unknown;
          try {
            body = JSON.parse(raw);
          } catch {
            return send(400, { error: 'The body is not valid JSON' });
          }
          entry.body = body;
          const problem = validate(body);
          if (problem) return send(400, { error: problem });
          const id = randomBytes(12).toString('hex');
          const displayName = (body as { displayName: string }).displayName;
          const failWith =
            behaviour.failWith ?? (displayName === FAIL_NAME ? 'The stand-in was told to fail this video' : null);
          const video: StandInVideo = { id, polls: 0, failWith, result: behaviour.result, render: 'running' };
          videos.set(id, video);
          if (!failWith) renderVideo(video);
          send(202, { id, status: 'queued' });
        },
        (error: Error) => send(413, { error: error.message }),
      );
      return;
    }

    const poll = /^\/v1\/videos\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && poll) {
      const video = videos.get(decodeURIComponent(poll[1]!));
      if (!video) return send(404, { error: 'Unknown video id' });
      return send(200, status(video));
    }
    send(404, { error: 'not found' });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    requests,
    behaviour,
    async close() {
      for (const child of children) child.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('The body is too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What is wrong with a POST /v1/videos body, or null when it follows the contract. */
function validate(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'The body must be a JSON object';
  const b = body as Record<string, unknown>;
  const text = (key: string, max: number) => typeof b[key] === 'string' && (b[key] as string).length <= max;
  if (!INTENTS.includes(b.intent as string)) return 'intent must be romantic, platonic or professional';
  if (!text('displayName', 200) || !(b.displayName as string).trim()) return 'displayName is required';
  if (!text('tagline', 500)) return 'tagline must be a string';
  if (typeof b.matchPercentage !== 'number' || b.matchPercentage < 0 || b.matchPercentage > 100) {
    return 'matchPercentage must be a number 0..100';
  }
  if (!text('script', 5000) || !(b.script as string).trim()) return 'script is required';
  const podcasts = b.podcasts;
  if (
    !Array.isArray(podcasts) ||
    podcasts.length > 10 ||
    !podcasts.every(
      (p) =>
        p && typeof p.name === 'string' && p.name.length > 0 && (p.creator === null || typeof p.creator === 'string'),
    )
  ) {
    return 'podcasts must be a list of {name, creator}';
  }
  const theme = b.theme as Record<string, unknown> | undefined;
  if (!theme || !COLOR.test(String(theme.primary)) || !COLOR.test(String(theme.secondary))) {
    return 'theme must be {primary, secondary} as #rrggbb';
  }
  const format = b.format as Record<string, unknown> | undefined;
  if (format?.width !== 720 || format.height !== 1280 || typeof format.maxSeconds !== 'number') {
    return 'format must be {width: 720, height: 1280, maxSeconds}';
  }
  if (b.pictureDataUrl !== undefined) {
    if (
      typeof b.pictureDataUrl !== 'string' ||
      !/^data:image\/(jpeg|png|webp);base64,[A-Za-z0-9+/=]+$/.test(b.pictureDataUrl)
    ) {
      return 'pictureDataUrl must be a base64 data: URL of a JPEG, PNG or WebP image';
    }
  }
  return null;
}

// Run by hand: node --import tsx scripts/video-provider-stand-in.ts
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const standIn = await startVideoProviderStandIn({
    port: Number(arg('port') ?? process.env.VIDEO_PROVIDER_STAND_IN_PORT ?? 0),
    host: arg('host') ?? '127.0.0.1',
    apiKey: arg('api-key') ?? process.env.VIDEO_PROVIDER_API_KEY ?? 'stand-in-key',
  });
  console.log(`video provider stand-in listening on ${standIn.url}`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void standIn.close().then(() => process.exit(0)));
  }
}
