// Video jobs under faults (docs/videos.md, "Reliability"), with real worker processes, a Redis server
// of this test's own (so it can be restarted), real PostgreSQL and real ffmpeg. ffmpeg is wrapped by
// small shell scripts (FFMPEG_PATH) that make a render slow or fail once, to open a window for the
// fault; the code under test is the production worker, unchanged.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '@server/core/db/sql';
import { JobQueue } from '@server/core/jobs/job-queue';
import { createProject } from '@server/core/videos/video-projects';
import { exited, startWorkerProcess as startWorker, workerBeating } from '@server/test/app-process';
import { filesUnder } from '@server/test/files';
import { startTestServer, type TestServer, uniqueName, until } from '@server/test/harness';
import { killRedisProcess, startRedisProcess } from '@server/test/redis-process';
import { freePort } from '@server/test/spotify-flow';
import { QUEUES, VIDEO_TEXTS } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

describe('video jobs under faults', () => {
  let server: TestServer;
  let tmp: string;
  let mediaDir: string;
  let workDir: string;
  let redisPort: number;
  let redisServer: ChildProcess | undefined;
  let redis: Redis;
  let refusedConnections = 0;
  let jobs: JobQueue;
  let queue: Queue;
  const workers: ChildProcess[] = [];

  async function startRedis(): Promise<void> {
    redisServer = await startRedisProcess(redisPort);
  }

  async function stopRedis(): Promise<void> {
    await killRedisProcess(redisServer);
    redisServer = undefined;
  }

  /** A shell script standing in for ffmpeg: `prelude` runs first, then the real ffmpeg. */
  async function ffmpegWrapper(name: string, prelude: string): Promise<string> {
    const file = path.join(tmp, name);
    await fs.writeFile(file, `#!/bin/sh\n${prelude}\nexec ffmpeg "$@"\n`, { mode: 0o755 });
    return file;
  }

  const beating = (pid: number | undefined) => workerBeating(redis, pid);

  /** A worker process serving the video queue; resolves once its heartbeat is seen. */
  async function startWorkerProcess(env: Record<string, string> = {}): Promise<ChildProcess> {
    const child = await startWorker(
      {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        MEDIA_DIR: mediaDir,
        VIDEO_WORK_DIR: workDir,
        WORKER_QUEUES: 'video',
        // A killed worker's job is noticed within a couple of seconds.
        WORKER_LOCK_SECONDS: '2',
        // The Redis restart makes the worker log connection errors, as it should; keep the output clean.
        LOG_LEVEL: process.env.VIDEO_FAULTS_LOG_LEVEL ?? 'silent',
        ...env,
      },
      redis,
    );
    workers.push(child);
    return child;
  }

  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  async function project(): Promise<string> {
    return (await ownedProject()).id;
  }

  async function ownedProject(): Promise<{ id: string; token: string }> {
    const person = await server.login(uniqueName('fault'));
    const [show] = await sql<{ id: number }>(
      em(),
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [uniqueName('Show')],
    );
    await sql(em(), 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [
      person.user.id,
      show?.id,
    ]);
    const { row } = await createProject(em(), {
      userId: person.user.id,
      intent: 'romantic',
      source: 'generated',
      matchPercentage: 95,
    });
    await jobs.enqueue(
      'videoRender',
      { projectId: row.id, userId: person.user.id, intent: 'romantic' },
      { jobId: row.id },
    );
    return { id: row.id, token: person.token };
  }

  const projectRow = async (id: string) =>
    (
      await sql<{
        status: string;
        progress: number;
        completions: number;
        error_code: string | null;
        video_key: string | null;
      }>(em(), 'select status, progress, completions, error_code, video_key from video_intros where id = ?', [id])
    )[0];

  const finished = (id: string, timeoutMs = 60_000) =>
    until(
      async () => {
        const row = await projectRow(id);
        return row && (row.status === 'completed' || row.status === 'failed') ? row : null;
      },
      `project ${id} finished`,
      timeoutMs,
    );

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-video-faults-'));
    mediaDir = path.join(tmp, 'media');
    workDir = path.join(tmp, 'work');
    server = await startTestServer({ MEDIA_DIR: mediaDir });
    redisPort = await freePort();
    await startRedis();
    redis = new Redis(redisPort, { maxRetriesPerRequest: null });
    // Refused connections while the test restarts Redis are expected (and counted).
    redis.on('error', () => {
      refusedConnections++;
    });
    jobs = new JobQueue(redis);
    queue = new Queue(QUEUES.video, { connection: redis });
  }, 60_000);

  afterEach(async () => {
    for (const child of workers.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
  });

  afterAll(async () => {
    await queue?.close();
    await jobs?.close();
    redis?.disconnect();
    await stopRedis();
    await server?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('a worker killed with SIGKILL mid-render: another picks the job up and it completes exactly once', async () => {
    const slow = await ffmpegWrapper('slow-ffmpeg', 'sleep 3');
    const first = await startWorkerProcess({ FFMPEG_PATH: slow });
    const id = await project();
    // Rendering has begun (inputs submitted) in the first worker.
    await until(async () => ((await projectRow(id))?.progress ?? 0) >= 25, 'render started', 30_000);
    const leftovers = await fs.readdir(workDir);
    expect(leftovers.some((name) => name.startsWith(`${first.pid}-`))).toBe(true);
    first.kill('SIGKILL');
    await exited(first);

    await startWorkerProcess();
    const row = await finished(id);
    expect(row).toMatchObject({ status: 'completed', completions: 1 });
    // One video and one poster: the killed attempt stored nothing, and nothing was stored twice.
    expect(await filesUnder(path.join(mediaDir, 'videos'))).toHaveLength(2);
    // The killed worker's temporary files were removed by the next worker.
    await until(async () => (await fs.readdir(workDir)).length === 0, 'work dir empty', 10_000);
    // BullMQ records the outcome just after the handler wrote the project row.
    await until(async () => (await queue.getJobState(id)) === 'completed', 'job completed');
  });

  it('SIGTERM lets the in-flight render finish, then the worker exits cleanly', async () => {
    const slow = await ffmpegWrapper('slow-ffmpeg-2', 'sleep 2');
    const worker = await startWorkerProcess({ FFMPEG_PATH: slow });
    const id = await project();
    await until(async () => ((await projectRow(id))?.progress ?? 0) >= 25, 'render started', 30_000);
    worker.kill('SIGTERM');
    const code = await exited(worker);
    expect(code).toBe(0);
    // Finished before the process exited: nobody else was running.
    expect(await projectRow(id)).toMatchObject({ status: 'completed', completions: 1 });
    expect(await fs.readdir(workDir)).toEqual([]);
    // It said goodbye: its heartbeat is gone at once, not after expiry.
    expect(await beating(worker.pid)).toBe(false);
  });

  it('a failed attempt is retried after a backoff; the last failure marks the project failed and cleans up', async () => {
    const marker = path.join(tmp, 'failed-once');
    const flaky = await ffmpegWrapper('flaky-ffmpeg', `if [ ! -f "${marker}" ]; then touch "${marker}"; exit 1; fi`);
    const worker = await startWorkerProcess({ FFMPEG_PATH: flaky });
    const id = await project();
    const row = await finished(id);
    expect(row).toMatchObject({ status: 'completed', completions: 1 });
    // The project row is written inside the handler; BullMQ records the outcome just after.
    await until(async () => (await queue.getJob(id))?.finishedOn !== undefined, 'job finished');
    const job = await queue.getJob(id);
    expect(job?.attemptsMade).toBeGreaterThanOrEqual(1);
    expect(await job?.getState()).toBe('completed');
    worker.kill('SIGTERM');
    await exited(worker);

    // ffmpeg that always fails: three attempts, then the project says why, and no file is left.
    const broken = await ffmpegWrapper('broken-ffmpeg', 'exit 1');
    await startWorkerProcess({ FFMPEG_PATH: broken });
    const videosBefore = await filesUnder(path.join(mediaDir, 'videos'));
    const { id: failedId, token } = await ownedProject();
    const failed = await finished(failedId);
    expect(failed).toMatchObject({ status: 'failed', completions: 0, error_code: 'unknown' });
    const status = await server.call('GET', `/api/video-status/${failedId}`, { token });
    expect(status.json).toMatchObject({ status: 'failed', url: null, error: VIDEO_TEXTS.profile.failed });
    await until(async () => (await queue.getJob(failedId))?.finishedOn !== undefined, 'job failed');
    expect((await queue.getJob(failedId))?.attemptsMade).toBe(3);
    expect(await filesUnder(path.join(mediaDir, 'videos'))).toEqual(videosBefore);
    // Every attempt's directory goes (once seen still there just after the job's failure was recorded).
    await until(async () => (await fs.readdir(workDir)).length === 0, 'the work directories to be removed', 10_000);
  });

  it('a Redis restart: the same worker process carries on and completes new work', async () => {
    const worker = await startWorkerProcess();
    const refusedBefore = refusedConnections;
    await stopRedis();
    // Down for real: connections to it are refused (the worker's retry as this test's client does).
    await until(async () => refusedConnections > refusedBefore, 'a refused reconnection');
    await startRedis();
    // The queue's data went with the restart (no persistence in this test); new work arrives.
    const id = await project();
    const row = await finished(id, 60_000);
    expect(row).toMatchObject({ status: 'completed', completions: 1 });
    expect(worker.exitCode).toBeNull();
    // Its heartbeat is back too.
    await until(() => beating(worker.pid), 'heartbeat after restart', 15_000);
    // The job's work directory goes just after its row is written (as in the test above).
    await until(async () => (await fs.readdir(workDir)).length === 0, 'the work directory to be removed', 10_000);
  });
});
