// Queued jobs under faults (docs/operations.md, "Faults"), with real processes: worker processes
// (and, for the full stop, server processes behind HAProxy) on a Redis of this test's own
// that keeps its data in an append-only file, as production Redis for BullMQ must. Jobs come from
// the app's own flows: a new account's portrait (staged in the job outbox with the account) and
// generated video intros. (a) Redis crashes while jobs are queued and running, and accounts are
// made while it is away: every job completes, the same worker processes carry on. (e) SIGTERM on
// every process at once under chat load and jobs in flight: each exits cleanly, nothing
// acknowledged is lost, and after a restart every job completes, each video exactly once.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '@server/core/db/orm';
import { sql } from '@server/core/db/sql';
import { exited, failedJobs, portraitsMade, startServerProcess, startWorkerProcess } from '@server/test/app-process';
import { mutualPair } from '@server/test/chat-flow';
import { startTestServer, TestClient, type TestServer, uniqueName, until } from '@server/test/harness';
import { ownMigratedDatabase } from '@server/test/own-database';
import { killRedisProcess, startRedisProcess, stopRedisProcess } from '@server/test/redis-process';
import { freePort } from '@server/test/spotify-flow';
import type { Message } from '@shared/index';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LoadBalancer, startLoadBalancer } from '../../scripts/lib/load-balancer';

describe('queued jobs under faults', () => {
  let tmp: string;
  let mediaDir: string;
  let redisDir: string;
  let redisPort: number;
  let redisServer: ChildProcess | undefined;
  let redis: Redis;
  let orm: MikroORM;
  const children: ChildProcess[] = [];
  const em = () => orm.em.fork() as EntityManager;
  const redisUrl = () => `redis://127.0.0.1:${redisPort}`;
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;

  /** A worker process on every queue; resolves once its heartbeat is seen. */
  async function startWorker(): Promise<ChildProcess> {
    const child = await startWorkerProcess(
      {
        REDIS_URL: redisUrl(),
        DATABASE_URL: database.url,
        MEDIA_DIR: mediaDir,
        VIDEO_WORK_DIR: path.join(tmp, 'work'),
        WORKER_LOCK_SECONDS: '5',
        // Redis going away makes every process log connection errors, as it should.
        LOG_LEVEL: process.env.JOB_FAULTS_LOG_LEVEL ?? 'silent',
      },
      redis,
    );
    children.push(child);
    return child;
  }

  async function startServer(port: number): Promise<ChildProcess> {
    const child = await startServerProcess(port, {
      REDIS_URL: redisUrl(),
      DATABASE_URL: database.url,
      MEDIA_DIR: mediaDir,
      CHAT_SEND_LIMIT: '1000',
    });
    children.push(child);
    return child;
  }

  /** Someone who may ask for a generated intro: one podcast in their library. */
  async function introReady(userId: number): Promise<void> {
    const [show] = await sql<{ id: number }>(
      em(),
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [uniqueName('Show')],
    );
    await sql(em(), 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [
      userId,
      show?.id,
    ]);
  }

  const portraits = (userIds: number[]) => portraitsMade(em(), userIds);

  const videos = (ids: string[]) =>
    sql<{ id: string; status: string; completions: number; error_code: string | null }>(
      em(),
      'select id, status, completions, error_code from video_intros where id = any(?::uuid[])',
      [`{${ids.join(',')}}`],
    );

  /** Waits until these intros are finished (completed or failed) and answers their rows. */
  const rendered = (ids: string[]) =>
    until(
      async () => {
        const found = await videos(ids);
        return found.every((r) => r.status === 'completed' || r.status === 'failed') ? found : null;
      },
      'every intro finished',
      90_000,
    );

  /** How many of these people's portrait jobs wait in the job outbox (staged, not yet queued). */
  async function waitingInOutbox(userIds: number[]): Promise<number> {
    const [row] = await sql<{ n: number }>(
      em(),
      `select count(*)::int as n from job_outbox
        where job_key = 'avatarGenerate' and (payload->>'userId')::int = any(?::int[])`,
      [`{${userIds.join(',')}}`],
    );
    return row?.n ?? 0;
  }

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-job-faults-'));
    mediaDir = path.join(tmp, 'media');
    redisDir = path.join(tmp, 'redis');
    await fs.mkdir(redisDir);
    redisPort = await freePort();
    redisServer = await startRedisProcess(redisPort, redisDir);
    redis = new Redis(redisPort, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    // Its own database: these servers' outbox relays (on this Redis) must not take other tests' jobs.
    database = await ownMigratedDatabase('podmatch_test_job_faults');
    orm = await initOrm(database.url);
  }, 60_000);

  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
  });

  afterAll(async () => {
    redis?.disconnect();
    await killRedisProcess(redisServer);
    await orm?.close();
    await database?.drop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('(a) Redis crashes with jobs queued and running: every job completes, the same processes carry on', async () => {
    const server: TestServer = await startTestServer({
      REDIS_URL: redisUrl(),
      DATABASE_URL: database.url,
      MEDIA_DIR: mediaDir,
    });
    try {
      const workers = [await startWorker(), await startWorker()];
      const failedBefore = await failedJobs(redis);

      // Jobs in flight: 40 new accounts (a portrait each) and 2 intros.
      const before = await Promise.all(Array.from({ length: 40 }, () => server.login(uniqueName('redis'))));
      const makers = before.slice(0, 2);
      for (const person of makers) await introReady(person.user.id);
      const projects = await Promise.all(
        makers.map(async (person) => {
          const res = await server.call('POST', `/api/users/${person.user.id}/generate-video`, {
            token: person.token,
            body: { intent: 'platonic', matchPercentage: 90 },
          });
          expect(res.status, res.text).toBe(202);
          return res.json.projectId as string;
        }),
      );
      const doneBeforeCrash = await portraits(before.map((p) => p.user.id));

      await killRedisProcess(redisServer);
      // Accounts made while Redis is away: their portraits wait in the outbox, not lost.
      const during = await Promise.all(Array.from({ length: 20 }, () => server.login(uniqueName('redis'))));
      const duringIds = during.map((p) => p.user.id);
      await until(
        async () => (await waitingInOutbox(duringIds)) === during.length,
        'the portraits of accounts made while Redis is away, waiting in the outbox',
      );
      redisServer = await startRedisProcess(redisPort, redisDir);

      const everyone = [...before, ...during].map((p) => p.user.id);
      await until(async () => (await portraits(everyone)) === everyone.length, 'every portrait', 60_000);
      const rows = await rendered(projects);
      const failed = (await failedJobs(redis)) - failedBefore;
      console.log(
        `redis restart (jobs): queued ${everyone.length + projects.length} (${during.length} while Redis was down), ` +
          `completed ${everyone.length + rows.length}, done before the crash ${doneBeforeCrash}, failed ${failed}, ` +
          `intros completed once ${rows.filter((r) => r.completions === 1).length}/${projects.length}`,
      );
      expect(rows).toMatchObject([
        { status: 'completed', completions: 1 },
        { status: 'completed', completions: 1 },
      ]);
      expect(failed).toBe(0);
      expect(doneBeforeCrash).toBeLessThan(everyone.length);
      // No restart: the same worker processes did the work.
      expect(workers.every((w) => w.exitCode === null && w.signalCode === null)).toBe(true);
    } finally {
      await server.close();
    }
  }, 180_000);

  it('(e) SIGTERM on every process at once: each exits cleanly, nothing acknowledged lost, every job done after a restart', async () => {
    const ports = [await freePort(), await freePort()];
    const servers = await Promise.all(ports.map(startServer));
    const workers = [await startWorker(), await startWorker()];
    const proxy: LoadBalancer = await startLoadBalancer({
      port: 0,
      host: '127.0.0.1',
      targets: ports,
      log: () => undefined,
    });
    const client = new TestClient(`http://127.0.0.1:${proxy.port}`);
    try {
      const pairs = await Promise.all(Array.from({ length: 4 }, () => mutualPair(client, database.url)));
      const people = await Promise.all(Array.from({ length: 20 }, () => client.login(uniqueName('sigterm'))));
      const makers = people.slice(0, 2);
      for (const person of makers) await introReady(person.user.id);
      const projects = await Promise.all(
        makers.map(async (person) => {
          const res = await client.call('POST', `/api/users/${person.user.id}/generate-video`, {
            token: person.token,
            body: { intent: 'platonic', matchPercentage: 90 },
          });
          expect(res.status, res.text).toBe(202);
          return res.json.projectId as string;
        }),
      );

      // Chat load: each pair sends until the service stops answering.
      let stopping = false;
      const acknowledged: number[] = [];
      const sentBy = new Set<number>();
      const senders = pairs.map(async ({ a, matchId }) => {
        while (!stopping) {
          const res = await client
            .call('POST', '/api/chat', {
              token: a.token,
              body: { matchId, senderId: a.id, content: 'hi', clientId: randomUUID() },
            })
            .catch(() => null);
          if (res?.status === 201) {
            acknowledged.push((res.json as Message).id);
            sentBy.add(matchId);
          }
        }
      });
      // Under way: every pair has had sends acknowledged.
      await until(async () => sentBy.size === pairs.length, 'chat load under way');

      // Everything at once, as `docker compose down` or a host shutdown does: servers, workers, Redis.
      stopping = true;
      const processes = [...servers, ...workers];
      const exits = processes.map(exited);
      const stoppedAt = Date.now();
      for (const child of processes) child.kill('SIGTERM');
      await stopRedisProcess(redisServer);
      const codes = await Promise.all(exits);
      const stopMs = Date.now() - stoppedAt;
      await Promise.all(senders);
      await proxy.close();

      const stored = await sql<{ id: number }>(em(), 'select id from messages where match_id = any(?::int[])', [
        `{${pairs.map((p) => p.matchId).join(',')}}`,
      ]);
      const storedIds = new Set(stored.map((r) => r.id));
      const lost = acknowledged.filter((id) => !storedIds.has(id)).length;

      // Start again (one of each): whatever was queued or staged completes.
      redisServer = await startRedisProcess(redisPort, redisDir);
      await startServer(await freePort());
      await startWorker();
      const ids = people.map((p) => p.user.id);
      await until(async () => (await portraits(ids)) === ids.length, 'every portrait after the restart', 60_000);
      const rows = await rendered(projects);
      console.log(
        `sigterm everything: exit codes ${codes.join(',')} in ${stopMs} ms; messages acknowledged ${acknowledged.length}, ` +
          `stored ${storedIds.size}, lost ${lost}; jobs ${ids.length + projects.length}, completed after the restart ` +
          `${ids.length + rows.length}, intros completed once ${rows.filter((r) => r.completions === 1).length}/${projects.length}`,
      );
      expect(codes).toEqual(processes.map(() => 0));
      expect(acknowledged.length).toBeGreaterThan(0);
      expect(lost).toBe(0);
      expect(rows).toMatchObject([
        { status: 'completed', completions: 1 },
        { status: 'completed', completions: 1 },
      ]);
    } finally {
      await proxy.close().catch(() => undefined);
    }
  }, 240_000);
});
