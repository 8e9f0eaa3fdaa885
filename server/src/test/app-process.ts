// Real server and worker processes for the fault tests (docs/operations.md, "Faults"), started with
// the test environment plus what each test sets.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { QUEUES, WORKER_HEARTBEAT } from '@shared/index';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { sql } from '../core/db/sql';
import { testEnv, until } from './harness';

/**
 * The arguments of `node` that run the server or the worker: its bundle, built by the tier's global
 * setup (scripts/test/stack-setup.ts), as production runs it; it starts on less CPU than the
 * sources through tsx, which compile as they load.
 */
export function appProcessArgs(app: 'server' | 'worker'): string[] {
  return [path.join(inject('appBundleDir'), `${app}.mjs`)];
}

/** How long a server or worker process may take to start, slowly while files beside it keep the cores busy. */
export const PROCESS_START_TIMEOUT_MS = 60_000;

/** Resolves with the exit code once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Starts a server process on `port`; its last output is kept for the error if it dies starting. */
export async function startServerProcess(port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, appProcessArgs('server'), {
    env: { ...process.env, ...testEnv({ PORT: String(port), LOG_LEVEL: 'error', TRUST_PROXY: 'loopback', ...env }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    output = (output + chunk).slice(-4000);
  });
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`a server process exited while starting: ${output}`);
      return fetch(`http://127.0.0.1:${port}/api/health`).then(
        () => true,
        () => false,
      );
    },
    'the server process to listen',
    PROCESS_START_TIMEOUT_MS,
  );
  return child;
}

/** Whether worker process `pid` has a live heartbeat on `queue` (worker ids start with the pid). */
export async function workerBeating(redis: Redis, pid: number | undefined, queue: string = QUEUES.video) {
  const ids = await redis.zrangebyscore(WORKER_HEARTBEAT.queueKey(queue), Date.now(), '+inf').catch(() => []);
  return ids.some((workerId) => workerId.startsWith(`${pid}-`));
}

/**
 * Starts `node worker/src/main.ts` with the test environment plus `env` (its output inherited),
 * resolved once its heartbeat is seen through `redis` on the video queue.
 */
export async function startWorkerProcess(env: Record<string, string>, redis: Redis): Promise<ChildProcess> {
  const child = spawn(process.execPath, appProcessArgs('worker'), {
    env: { ...process.env, ...testEnv({ DEMO_VIDEOS: 'off', ...env }) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error('a worker process exited while starting');
      return workerBeating(redis, child.pid);
    },
    'worker heartbeat',
    PROCESS_START_TIMEOUT_MS,
  );
  return child;
}

/** How many jobs of every queue have failed for good (retries spent), seen through `redis`. */
export async function failedJobs(redis: Redis): Promise<number> {
  let failed = 0;
  for (const name of Object.values(QUEUES)) {
    const queue = new Queue(name, { connection: redis });
    failed += (await queue.getJobCounts('failed')).failed ?? 0;
    await queue.close();
  }
  return failed;
}

/** How many of these people have their generated portrait (a job staged with each new account). */
export async function portraitsMade(em: EntityManager, userIds: number[]): Promise<number> {
  const [row] = await sql<{ n: number }>(
    em,
    `select count(*)::int as n from users where id = any(?::int[]) and profile_picture like '/media/avatars/%'`,
    [`{${userIds.join(',')}}`],
  );
  return row?.n ?? 0;
}
