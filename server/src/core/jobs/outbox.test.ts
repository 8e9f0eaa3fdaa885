// The job outbox (docs/operations.md, "Jobs that cannot be lost"): jobs staged with a change commit
// with it, and a Redis that is down between the commit and the enqueue loses none of them; the relay
// queues them once it is back. A Redis server of this test's own, stopped and started for real.
import type { ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import { jobs } from '@shared/jobs';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../test/harness';
import { ownMigratedDatabase } from '../../test/own-database';
import { killRedisProcess, startRedisProcess } from '../../test/redis-process';
import { freePort } from '../../test/spotify-flow';
import { initOrm } from '../db/orm';
import { sql } from '../db/sql';
import { createLogger } from '../logger';
import { JobQueue } from './job-queue';
import { OutboxRelay, stageJob } from './outbox';

describe('the job outbox', () => {
  let orm: MikroORM;
  let port: number;
  let redisServer: ChildProcess | undefined;
  let redis: Redis;
  let queue: JobQueue;
  let relay: OutboxRelay;
  let avatars: Queue;

  async function startRedis() {
    redisServer = await startRedisProcess(port);
  }

  async function stopRedis() {
    await killRedisProcess(redisServer);
    redisServer = undefined;
  }

  const outboxRows = async () =>
    (await sql<{ n: number }>(orm.em.fork(), 'select count(*)::int as n from job_outbox'))[0]?.n ?? 0;
  /** Rows no relay round holds at the moment. */
  const unlockedOutboxRows = async () =>
    (
      await sql<{ n: number }>(
        orm.em.fork(),
        'select count(*)::int as n from (select id from job_outbox for update skip locked) free',
      )
    )[0]?.n ?? 0;

  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;

  beforeAll(async () => {
    // Its own database: this relay must see only this test's rows (and take no other test's jobs).
    database = await ownMigratedDatabase('podmatch_test_outbox');
    orm = await initOrm(database.url);
    port = await freePort();
    await startRedis();
    // Commands wait (and retry) while Redis is away, as the app's connection does; each fails after
    // a few tries, and the relay tries again later.
    redis = new Redis(port, { maxRetriesPerRequest: 2, retryStrategy: () => 200 });
    redis.on('error', () => undefined);
    queue = new JobQueue(redis);
    relay = new OutboxRelay(orm, queue, createLogger('outbox', 'silent')).start();
    avatars = new Queue(jobs.avatarGenerate.queue, { connection: redis });
    // Its commands fail while Redis is stopped; an 'error' event nobody listens to would be thrown.
    avatars.on('error', () => undefined);
  });

  afterAll(async () => {
    await relay?.close();
    await avatars?.close();
    await queue?.close();
    redis?.disconnect();
    await stopRedis();
    await orm?.close();
    await database?.drop();
  });

  it('a job staged in a transaction that rolls back is never queued', async () => {
    const before = await outboxRows();
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await stageJob(tx, 'avatarGenerate', { userId: 424242 });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await outboxRows()).toBe(before);
  });

  it('Redis down between commit and enqueue: every committed job is queued once it is back', async () => {
    await stopRedis();
    // Forty changes commit with their jobs while Redis is gone (as many requests would).
    const staged = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        orm.em.fork().transactional((tx) => stageJob(tx, 'avatarGenerate', { userId: 900_000 + i })),
      ),
    );
    expect(new Set(staged).size).toBe(40);
    relay.kick();
    // A relay round has taken rows (it holds their locks) and waits on Redis.
    await until(async () => (await outboxRows()) > (await unlockedOutboxRows()), 'a relay round holding rows');
    // Nothing could be queued: the rows wait.
    expect(await outboxRows()).toBe(40);

    await startRedis();
    await until(async () => (await outboxRows()) === 0, 'outbox drained', 20_000);
    const queued = await avatars.getJobs(['waiting', 'prioritized', 'delayed']);
    const ids = queued.map((job) => job.id);
    expect(ids.sort()).toEqual([...staged].sort());
    expect(queued.map((job) => job.data.userId).sort()).toEqual(Array.from({ length: 40 }, (_, i) => 900_000 + i));
  });

  it('a row relayed twice (a relay that died before deleting it) is still one job', async () => {
    const [jobId] = await orm.em
      .fork()
      .transactional(async (tx) => [await stageJob(tx, 'avatarGenerate', { userId: 777_777 })]);
    await relay.flush();
    // The same job again, as a second relay round would send it.
    await queue.enqueue('avatarGenerate', { userId: 777_777 }, { jobId });
    const all = await avatars.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(all.filter((job) => job.data.userId === 777_777)).toHaveLength(1);
  });
});
