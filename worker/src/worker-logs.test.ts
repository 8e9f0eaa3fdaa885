// The worker's log lines (docs/operations.md, "Logs"): every line a job writes, in the worker and
// deep in core code (the full recompute's progress), carries that job's id and name and the
// instance, also with jobs of two queues running at once; a failed job's line names it too.
import { JobQueue } from '@server/core/jobs/job-queue';
import { createLogger, INSTANCE } from '@server/core/logger';
import { testEnv, until } from '@server/test/harness';
import { jobs, QUEUES } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config';
import { type RunningWorker, startWorker } from './worker';

interface Line {
  level: string;
  name: string;
  instance: string;
  msg: string;
  jobId?: string;
  job?: string;
}

describe('worker logs', () => {
  const text: string[] = [];
  const lines = () => text.map((line) => JSON.parse(line) as Line);
  let redis: Redis;
  let queue: JobQueue;
  let worker: RunningWorker;
  beforeAll(async () => {
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new JobQueue(redis);
    const logger = createLogger('worker', 'debug', { format: 'json', destination: { write: (l) => text.push(l) } });
    worker = await startWorker(loadWorkerConfig(testEnv({ WORKER_QUEUES: 'matching,sync' })), logger);
  });
  afterAll(async () => {
    await worker?.close();
    await queue?.close();
    redis?.disconnect();
  });

  /** The lines of job `id` (ids count per queue: with its name), once it has finished (completed or failed). */
  const linesOf = (id: string, job: string) =>
    until(async () => {
      const mine = lines().filter((line) => line.jobId === id && line.job === job);
      return mine.some((line) => /^job completed|failed/.test(line.msg)) ? mine : null;
    }, `the lines of job ${job} ${id}`);

  it('gives every line of a job its id and name, deep code included, with jobs running at once', async () => {
    const [recompute, expire] = await Promise.all([
      queue.enqueue('matchesRecompute', { scope: 'all' }),
      queue.enqueue('reportsExpire', { olderThanDays: 30 }),
    ]);
    const recomputeLines = await linesOf(recompute, jobs.matchesRecompute.name);
    const expireLines = await linesOf(expire, jobs.reportsExpire.name);
    // The full recompute's progress, written by core/matching through the job's logger.
    expect(recomputeLines.filter((line) => line.msg.startsWith('matches.recompute: ')).length).toBeGreaterThan(1);
    expect(recomputeLines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['job started (attempt 1)', expect.stringMatching(/^job completed in \d+ ms$/)]),
    );
    // No line of the recompute went out without its id and name, nor with the other job's.
    const progress = lines().filter((line) => line.msg.startsWith('matches.recompute: '));
    expect(new Set(progress.map((line) => `${line.job} ${line.jobId}`))).toEqual(
      new Set([`${jobs.matchesRecompute.name} ${recompute}`]),
    );
    for (const line of [...recomputeLines, ...expireLines]) {
      expect(line).toMatchObject({ name: 'worker', instance: INSTANCE });
    }
    console.log(`worker logs: e.g. ${text.find((line) => line.includes('matches.recompute: '))}`);
  });

  it('names the job in the line of its failure', async () => {
    // A payload its schema refuses: the job fails at once, without retries.
    const raw = new Queue(QUEUES.sync, { connection: redis });
    try {
      const job = await raw.add(jobs.reportsExpire.name, { olderThanDays: 'never' });
      const failed = (await linesOf(job.id ?? '', jobs.reportsExpire.name)).find((line) => line.level === 'warn');
      expect(failed).toMatchObject({ job: jobs.reportsExpire.name, instance: INSTANCE });
      expect(failed?.msg).toMatch(/^job reports\.expire \d+ failed \(attempt 1, final\)/);
    } finally {
      await raw.close();
    }
  });
});
