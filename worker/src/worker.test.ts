import { JobQueue } from '@server/core/jobs/job-queue';
import { createLogger } from '@server/core/logger';
import { collectEvents, nextEvent, startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { jobs, QUEUES } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config';
import { handlers } from './handlers';
import { MATCHES_REFRESH_SCHEDULER, RECOMPUTE_ALL_SCHEDULER, type RunningWorker, startWorker } from './worker';

const silent = createLogger('worker', 'silent');

describe('worker roles and schedules', () => {
  let server: TestServer;
  let redis: Redis;
  let queue: JobQueue;
  const started: RunningWorker[] = [];
  beforeAll(async () => {
    server = await startTestServer();
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new JobQueue(redis);
  });
  afterAll(async () => {
    await Promise.all(started.map((w) => w.close()));
    await queue.close();
    redis.disconnect();
    await server.close();
  });
  const start = async (env: Record<string, string>) => {
    const worker = await startWorker(loadWorkerConfig(testEnv(env)), silent);
    started.push(worker);
    return worker;
  };

  it('reads a role: which queues, and how many jobs of each at once', () => {
    const config = loadWorkerConfig(testEnv({ WORKER_QUEUES: 'sync, matching', WORKER_CONCURRENCY_SYNC: '8' }));
    expect(config.queues).toEqual(['sync', 'matching']);
    expect(config.concurrency).toMatchObject({ sync: 8, matching: 2 });
    expect(loadWorkerConfig(testEnv()).queues.sort()).toEqual(Object.values(QUEUES).sort());
    expect(() => loadWorkerConfig(testEnv({ WORKER_QUEUES: 'videos' }))).toThrow(/WORKER_QUEUES/);
    expect(() => loadWorkerConfig(testEnv({ WORKER_QUEUES: ' , ' }))).toThrow(/WORKER_QUEUES/);
  });

  it('refuses the development-only allow-lists in production, and starts in no mode without IMAGE_PROXY_KEY', () => {
    const production = { NODE_ENV: 'production', TOKEN_ENCRYPTION_KEY: undefined };
    expect(() => loadWorkerConfig(testEnv({ ...production, FEED_FETCH_ALLOWED_IPS: '127.0.0.1' }))).toThrow(
      /FEED_FETCH_ALLOWED_IPS/,
    );
    expect(() => loadWorkerConfig(testEnv({ ...production, IMAGE_PROXY_ALLOWED_IPS: '127.0.0.1' }))).toThrow(
      /IMAGE_PROXY_ALLOWED_IPS/,
    );
    // The key of the image proxy's URLs, which the worker signs too (a match's shared shows).
    expect(() => loadWorkerConfig(testEnv({ ...production, IMAGE_PROXY_KEY: undefined }))).toThrow(
      /IMAGE_PROXY_KEY: required/,
    );
    expect(loadWorkerConfig(testEnv({ FEED_FETCH_ALLOWED_IPS: '127.0.0.1' })).feedFetchAllowedIps).toEqual([
      '127.0.0.1',
    ]);
  });

  it('serves only the queues of its role', async () => {
    const user = await server.login();
    const syncOnly = await start({ WORKER_QUEUES: 'sync' });
    const media = await queue.enqueue('avatarGenerate', { userId: user.user.id });
    // A sync job queued after the avatar one completes: the sync worker is running, yet the
    // avatar job stays waiting because nothing serves the media queue.
    const socket = await server.socket(user.token);
    const sentinelId = await queue.enqueue('podcastsSync', { source: 'rss', userId: user.user.id, podcastIds: [] });
    await nextEvent(socket, 'job:status', (e) => e.jobId === sentinelId && e.state === 'completed');
    const mediaQueue = new Queue(QUEUES.media, { connection: redis });
    try {
      expect(await mediaQueue.getJobState(media)).toBe('waiting');
      await syncOnly.close();
      started.splice(started.indexOf(syncOnly), 1);
      const done = nextEvent(socket, 'job:status', (e) => e.jobId === media && e.state === 'completed');
      await start({ WORKER_QUEUES: 'media' });
      await done;
    } finally {
      await mediaQueue.close();
    }
  });

  it('schedules the periodic full recompute and the freshness check once, from the matching workers', async () => {
    const env = {
      WORKER_QUEUES: 'matching',
      MATCHES_RECOMPUTE_EVERY_MINUTES: '30',
      MATCHES_REFRESH_CHECK_SECONDS: '20',
    };
    await start(env);
    await start(env);
    const schedule = await queue.scheduleOf('matchesRecompute', RECOMPUTE_ALL_SCHEDULER);
    expect(schedule).toMatchObject({ every: 30 * 60_000, name: jobs.matchesRecompute.name });
    const refresh = await queue.scheduleOf('matchesRecompute', MATCHES_REFRESH_SCHEDULER);
    expect(refresh).toMatchObject({ every: 20_000, name: jobs.matchesRecompute.name });
    const matchingQueue = new Queue(QUEUES.matching, { connection: redis });
    try {
      // Two workers upserted them: still one of each.
      expect((await matchingQueue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(
        [RECOMPUTE_ALL_SCHEDULER, MATCHES_REFRESH_SCHEDULER].sort(),
      );
    } finally {
      await matchingQueue.close();
    }
    // A setting of 0 turns each off.
    await start({
      WORKER_QUEUES: 'matching',
      MATCHES_RECOMPUTE_EVERY_MINUTES: '0',
      MATCHES_REFRESH_CHECK_SECONDS: '0',
    });
    expect(await queue.scheduleOf('matchesRecompute', RECOMPUTE_ALL_SCHEDULER)).toBeUndefined();
    expect(await queue.scheduleOf('matchesRecompute', MATCHES_REFRESH_SCHEDULER)).toBeUndefined();
  });

  it("reports 'completed' only for a result that matches the job's contract", async () => {
    const real = handlers.avatarGenerate;
    // A handler that breaks its promise: the result schema says profilePicture is a string. Swapped
    // in before the sign-up: its own avatar job (which the enqueue below may be deduplicated into)
    // must not run with the real handler on a media worker an earlier test left running.
    handlers.avatarGenerate = async () => ({ profilePicture: 42 }) as never;
    const user = await server.login();
    await start({ WORKER_QUEUES: 'media' });
    const socket = await server.socket(user.token);
    const seen = collectEvents(socket, 'job:status');
    const mediaQueue = new Queue(QUEUES.media, { connection: redis });
    try {
      const broken = await queue.enqueue('avatarGenerate', { userId: user.user.id });
      const failed = await until(async () => {
        const job = await mediaQueue.getJob(broken);
        // The failure's reason is stored with it (not always in the same read as attemptsMade).
        return job?.failedReason ? job : undefined;
      }, 'the first attempt to fail');
      expect(failed.failedReason).toMatch(/profilePicture/);
      expect(failed.returnvalue).toBeFalsy();
      handlers.avatarGenerate = real;
      await mediaQueue.remove(broken).catch(() => undefined);
      // Events of one worker arrive in order: once a later job's 'completed' is here, any
      // 'completed' of the broken one would have arrived before it.
      // A person whose avatar job has not failed before (the first may still be waiting to retry).
      const other = await server.login();
      const otherSocket = await server.socket(other.token);
      const later = await queue.enqueue('avatarGenerate', { userId: other.user.id });
      await nextEvent(otherSocket, 'job:status', (e) => e.jobId === later && e.state === 'completed');
      const ofBroken = seen.map(([e]) => e as { jobId: string; state: string }).filter((e) => e.jobId === broken);
      expect(ofBroken.map((e) => e.state)).not.toContain('completed');
    } finally {
      handlers.avatarGenerate = real;
      await mediaQueue.close();
    }
  });
});
