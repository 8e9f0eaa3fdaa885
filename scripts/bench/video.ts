import fs from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@server/config';
import { initOrm, migrate } from '@server/core/db/orm';
import { sql } from '@server/core/db/sql';
import { createLogger } from '@server/core/logger';
import { probeVideo } from '@server/core/media/ffmpeg';
import { type RunningServer, startServer } from '@server/server';
import type { ClientToServerEvents, JobStatusEvent, LoginResponse, ServerToClientEvents } from '@shared/index';
import { io, type Socket } from 'socket.io-client';
import { loadWorkerConfig } from '../../worker/src/config';
import { type RunningWorker, startWorker } from '../../worker/src/worker';
import { benchAppEnv, benchServices } from '../lib/bench-services';
import { type LocalStack, recreateDatabase } from '../lib/local-stack';
import { cleanUpOnSignals } from '../lib/shutdown';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const WARMUP = process.env.BENCH_WARMUP !== '0';
const DATA_DIR = path.resolve('.data/bench-video');
const log = (line: string) => console.log(`[bench] ${line}`);

let stack: Promise<LocalStack> | undefined;
let server: Promise<RunningServer> | undefined;
let worker: Promise<RunningWorker> | undefined;
let socket: Socket<ServerToClientEvents, ClientToServerEvents> | undefined;

let cleaned: Promise<void> | undefined;
/** Stops what was started, in order: worker, server, then the services. */
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    socket?.disconnect();
    const settle = async <T>(p: Promise<T> | undefined) => (p ? p.catch(() => undefined) : undefined);
    await (await settle(worker))?.close();
    await (await settle(server))?.close();
    await (await settle(stack))?.stop();
  })();
  return cleaned;
}
const shutdown = cleanUpOnSignals('the server, the worker and the local stack', cleanup, log);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

async function main() {
  stack = benchServices({ dataDir: DATA_DIR, database: 'postgres', persistRedis: false, log });
  const services = await stack;
  await shutdown.parkIfStopping();
  const databaseUrl = await recreateDatabase(services.postgresBaseUrl, 'podmatch_bench_video');
  const redisUrl = services.redisUrl;
  const orm = await initOrm(databaseUrl);
  await migrate(orm).finally(() => orm.close());
  const mediaDir = path.join(DATA_DIR, 'media');
  await fs.rm(mediaDir, { recursive: true, force: true });
  const env = benchAppEnv(
    { databaseUrl, redisUrl, mediaDir },
    { VIDEO_WORK_DIR: path.join(DATA_DIR, 'work'), DEMO_VIDEOS: 'off', WORKER_QUEUES: 'video' },
  );
  server = startServer(loadConfig(env), createLogger('server', 'warn'));
  const url = (await server).url.replace('localhost', '127.0.0.1');
  worker = startWorker(loadWorkerConfig(env), createLogger('worker', 'warn'));
  await worker;

  const call = async (method: string, route: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const person = (await call('POST', '/api/auth/dev-login', undefined, { username: 'bench_video' })) as LoginResponse;
  // A name, a tagline and five shows: a narration of about 15 s.
  await call('PUT', `/api/users/${person.user.id}`, person.token, {
    displayName: 'Ada Lovelace',
    romanticTagline: 'Always listening to Serial and Radiolab while cooking dinner for friends',
  });
  const db = (await server).deps.orm.em.fork();
  for (const [i, name] of ['Serial', 'Radiolab', 'Hidden Brain', 'The Daily', '99% Invisible'].entries()) {
    const [show] = await sql<{ id: number }>(
      db,
      'insert into podcasts (name, creator, created_at) values (?, ?, now()) returning id',
      [name, 'Bench Media'],
    );
    await sql(db, 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, ?)', [
      person.user.id,
      show?.id,
      20 - i,
    ]);
  }
  socket = io(url, { auth: { token: person.token }, transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket?.once('connect', resolve);
    socket?.once('connect_error', reject);
  });

  const results: { render_s: number; first_progress_ms: number; video_s: number }[] = [];
  for (let run = WARMUP ? 0 : 1; run <= RUNS; run++) {
    const started = performance.now();
    let firstProgress = Number.NaN;
    const done = new Promise<JobStatusEvent>((resolve) => {
      const listener = (event: JobStatusEvent) => {
        if (event.progress > 0 && Number.isNaN(firstProgress)) firstProgress = performance.now() - started;
        if (event.state === 'completed' || event.state === 'failed') {
          socket?.off('job:status', listener);
          resolve(event);
        }
      };
      socket?.on('job:status', listener);
    });
    const { projectId } = (await call('POST', `/api/users/${person.user.id}/generate-video`, person.token, {
      intent: 'romantic',
      matchPercentage: 95,
    })) as { projectId: string };
    const outcome = await done;
    const elapsed = (performance.now() - started) / 1000;
    if (outcome.state !== 'completed') throw new Error(`render failed: ${JSON.stringify(outcome.error)}`);
    const status = (await call('GET', `/api/video-status/${projectId}`, person.token)) as { url: string };
    const video = await probeVideo(path.join(mediaDir, status.url.replace('/media/', '')));
    const line = {
      render_s: Number(elapsed.toFixed(2)),
      first_progress_ms: Math.round(firstProgress),
      video_s: Number(video.durationSeconds.toFixed(1)),
    };
    // Run 0 warms up (first ffmpeg/espeak start, font cache); it is printed but not counted.
    log(`${run === 0 ? 'warm-up' : `run ${run}`}: ${JSON.stringify(line)} (${video.width}x${video.height})`);
    if (run > 0) results.push(line);
  }
  const summary = {
    render_s: Number(median(results.map((r) => r.render_s)).toFixed(2)),
    first_progress_ms: Math.round(median(results.map((r) => r.first_progress_ms))),
    video_s: median(results.map((r) => r.video_s)),
  };
  await cleanup();
  console.log(JSON.stringify(summary));
}

main().catch(async (error: Error) => {
  console.error(`[bench] failed: ${error.stack ?? error.message}`);
  await cleanup().catch(() => undefined);
  process.exit(1);
});
