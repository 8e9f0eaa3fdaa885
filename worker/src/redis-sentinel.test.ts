// Redis Sentinel failover under chat and job load (docs/operations.md, "Redis that survives losing
// its primary"): a server process and a worker process reach Redis only through three sentinels.
// The primary is killed mid-load; the sentinels promote the replica, both processes follow it
// without a restart, every acknowledged message is stored once and shown (by event, or by catch-up
// for events lost in the switch), and every job completes: the portraits of accounts made before and
// during the failover (staged in the outbox, confirmed on the replica before they leave it) and a
// generated video intro, rendered exactly once.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '@server/core/db/orm';
import { sql } from '@server/core/db/sql';
import { connectRedis } from '@server/core/redis/redis-settings';
import { exited, failedJobs, portraitsMade, startServerProcess, startWorkerProcess } from '@server/test/app-process';
import { mutualPair, type Person } from '@server/test/chat-flow';
import { TestClient, type TestSocket, uniqueName, until } from '@server/test/harness';
import { ownMigratedDatabase } from '@server/test/own-database';
import { type SentinelGroup, startSentinelGroup } from '@server/test/redis-sentinel';
import { freePort } from '@server/test/spotify-flow';
import type { Message } from '@shared/index';
import type { Redis } from 'ioredis';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PAIRS = 4;
const SENDS_PER_PAIR = 30;
const KILL_AFTER = 8;

describe('Redis Sentinel: the primary killed under chat and job load', () => {
  let group: SentinelGroup;
  let redis: Redis;
  let orm: MikroORM;
  let tmp: string;
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let client: TestClient;
  const children: ChildProcess[] = [];
  const em = () => orm.em.fork() as EntityManager;

  beforeAll(async () => {
    group = await startSentinelGroup();
    redis = connectRedis(group.settings, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-sentinel-test-'));
    database = await ownMigratedDatabase('podmatch_test_sentinel');
    orm = await initOrm(database.url);
    const env = { ...group.env, DATABASE_URL: database.url, MEDIA_DIR: path.join(tmp, 'media') };
    const port = await freePort();
    children.push(await startServerProcess(port, { ...env, CHAT_SEND_LIMIT: '1000' }));
    children.push(
      await startWorkerProcess(
        { ...env, VIDEO_WORK_DIR: path.join(tmp, 'work'), LOG_LEVEL: process.env.SENTINEL_LOG_LEVEL ?? 'silent' },
        redis,
      ),
    );
    client = new TestClient(`http://127.0.0.1:${port}`);
  }, 90_000);

  afterAll(async () => {
    client?.closeSockets();
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    redis?.disconnect();
    await group?.stop();
    await orm?.close();
    await database?.drop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  async function catchUp(viewer: Person, matchId: number, after: number): Promise<Message[]> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const res = await client
        .call('GET', `/api/users/${viewer.id}/matches/${matchId}/messages?after=${after}&limit=100`, {
          token: viewer.token,
        })
        .catch(() => ({ status: 0, json: null }));
      if (res.status === 200) return res.json as Message[];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('catch-up never answered');
  }

  /** Accounts made now (each stages its portrait job in the outbox), retried while refused. */
  async function signUps(n: number): Promise<number[]> {
    return Promise.all(
      Array.from({ length: n }, async () => {
        for (let tries = 0; tries < 100; tries++) {
          const made = await client.login(uniqueName('sentinel')).catch(() => undefined);
          if (made) return made.user.id;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error('a sign-up never went through');
      }),
    );
  }

  it('a replica is promoted, the processes follow it, nothing acknowledged is lost, every job completes once', async () => {
    const firstPrimary = await group.primaryPort();
    const pairs = await Promise.all(Array.from({ length: PAIRS }, () => mutualPair(client, database.url)));

    // A generated intro in flight across the failover (one podcast in the maker's library).
    const maker = await client.login(uniqueName('sentinel'));
    const [show] = await sql<{ id: number }>(
      em(),
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [uniqueName('Show')],
    );
    await sql(em(), 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [
      maker.user.id,
      show?.id,
    ]);
    const intro = await client.call('POST', `/api/users/${maker.user.id}/generate-video`, {
      token: maker.token,
      body: { intent: 'platonic', matchPercentage: 90 },
    });
    expect(intro.status, intro.text).toBe(202);
    const accounts = await signUps(20);

    let switched = false;
    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        let contiguous = 0;
        let afterSwitch = 0;
        const show = (message: Message) => {
          shown.set(message.id, message);
          while ([...shown.values()].some((m) => m.seq === contiguous + 1)) contiguous++;
        };
        const socket: TestSocket = connectSocket(client.url, {
          auth: { token: b.token },
          transports: ['websocket'],
          reconnectionDelay: 100,
          reconnectionDelayMax: 500,
        });
        socket.on('message:new', (message) => {
          if (message.matchId !== matchId) return;
          if (switched) afterSwitch++;
          // A gap: events published while the primary was switching were lost; fetch what is missing.
          if (message.seq > contiguous + 1) void catchUp(b, matchId, contiguous).then((all) => all.forEach(show));
          show(message);
        });
        socket.io.on('reconnect', () => void catchUp(b, matchId, contiguous).then((all) => all.forEach(show)));
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return { socket, shown, afterSwitch: () => afterSwitch };
      }),
    );

    const acknowledged = pairs.map(() => new Set<number>());
    let refusedTries = 0;
    let during: Promise<number[]> = Promise.resolve([]);
    let killed = 0;
    const senders = pairs.map(async ({ a, matchId }, p) => {
      for (let k = 0; k < SENDS_PER_PAIR; k++) {
        if (p === 0 && k === KILL_AFTER) {
          killed = await group.killPrimary();
          // Accounts made while the sentinels are switching.
          during = signUps(10);
          // The orchestrator brings the dead node back; it rejoins as a replica.
          setTimeout(() => group.restart(killed).catch(() => undefined), 4000);
        }
        const clientId = randomUUID();
        for (let tries = 0; ; tries++) {
          if (tries > 200) throw new Error('a send was never acknowledged');
          const res = await client
            .call('POST', '/api/chat', {
              token: a.token,
              body: { matchId, senderId: a.id, content: `s${k}`, clientId },
            })
            .catch(() => ({ status: 0, json: null }));
          if (res.status === 201) {
            acknowledged[p]?.add((res.json as Message).id);
            break;
          }
          refusedTries++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    // The switch: the sentinels name the replica as primary.
    const promoted = await until(
      async () => {
        const port = await group.primaryPort().catch(() => 0);
        return port !== 0 && port !== firstPrimary ? port : undefined;
      },
      'a replica promoted',
      30_000,
    );
    switched = true;
    await Promise.all(senders);
    const madeDuring = await during;

    await until(
      async () => receivers.every((r, p) => [...(acknowledged[p] ?? [])].every((id) => r.shown.has(id))),
      'every acknowledged message shown',
      30_000,
    );
    for (const [p, { b, matchId }] of pairs.entries()) {
      const all = await catchUp(b, matchId, 0);
      expect(all.map((m) => m.seq)).toEqual(Array.from({ length: SENDS_PER_PAIR }, (_, i) => i + 1));
      expect(new Set(all.map((m) => m.id))).toEqual(acknowledged[p]);
    }
    // Events flow again after the switch: through the new primary, not only by catch-up.
    expect(receivers.reduce((n, r) => n + r.afterSwitch(), 0)).toBeGreaterThan(0);

    // Every job completes: each account's portrait, and the intro exactly once.
    const everyone = [...accounts, ...madeDuring];
    await until(async () => (await portraitsMade(em(), everyone)) === everyone.length, 'every portrait made', 60_000);
    const [video] = await until(
      async () => {
        const rows = await sql<{ status: string; completions: number }>(
          em(),
          'select status, completions from video_intros where id = ?',
          [intro.json.projectId],
        );
        return rows[0]?.status === 'completed' || rows[0]?.status === 'failed' ? rows : undefined;
      },
      'the intro rendered',
      90_000,
    );
    expect(video).toEqual({ status: 'completed', completions: 1 });
    const failed = await failedJobs(redis);
    expect(failed).toBe(0);
    // The same processes throughout.
    for (const child of children) expect(child.exitCode).toBeNull();
    console.log(
      `sentinel failover: primary ${firstPrimary} killed, ${promoted} promoted; ${PAIRS * SENDS_PER_PAIR} messages ` +
        `stored once and shown, ${refusedTries} refused tries retried; ${everyone.length} portraits and 1 intro completed`,
    );
    for (const r of receivers) r.socket.disconnect();
  }, 180_000);
});
