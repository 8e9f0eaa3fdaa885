// PostgreSQL crashed and started again under chat load (docs/operations.md, "Faults"): two real
// server processes behind HAProxy (deploy/haproxy.cfg), on a PostgreSQL and a Redis of this test's own. The
// database goes down with an immediate shutdown (no checkpoint: crash recovery on the next start).
// Meanwhile sends are answered 503 and retried with the same clientId (what the app's outbox does).
// Nothing is acknowledged without a commit, nothing is stored or shown twice, the service is back
// within 10 s of the database, and no server process is restarted.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Message } from '@shared/index';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadBalancer, startLoadBalancer } from '../../../scripts/lib/load-balancer';
import { startPostgres } from '../../../scripts/lib/local-stack';
import { initOrm } from '../core/db/orm';
import { prepareDatabase } from '../core/db/prepare-database';
import { sql } from '../core/db/sql';
import { startServerProcess } from '../test/app-process';
import { catchUp, mutualPair, type Person } from '../test/chat-flow';
import { TestClient, type TestSocket, until } from '../test/harness';
import { killRedisProcess, startRedisProcess } from '../test/redis-process';
import { freePort } from '../test/spotify-flow';

const PAIRS = 6;
const SENDS_PER_PAIR = 30;
const CRASH_AFTER = 10;
const DOWN_MS = 2000;

describe('PostgreSQL restarted under chat load', () => {
  let tmp: string;
  let pgPort: number;
  let postgres: Awaited<ReturnType<typeof startPostgres>>;
  let databaseUrl: string;
  let redis: ChildProcess | undefined;
  const servers: ChildProcess[] = [];
  let proxy: LoadBalancer;
  let client: TestClient;

  const startDatabase = () =>
    startPostgres({ dataDir: tmp, pgPort, database: 'podmatch', persistRedis: false, log: () => undefined });

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-pg-fault-'));
    pgPort = await freePort();
    postgres = await startDatabase();
    databaseUrl = postgres.url('podmatch');
    const redisPort = await freePort();
    redis = await startRedisProcess(redisPort);
    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    await prepareDatabase({ databaseUrl, redisUrl, seed: false, log: () => undefined });
    const ports = [await freePort(), await freePort()];
    // Retries during the outage count as sends; this test is about the database, not the allowance.
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, CHAT_SEND_LIMIT: '1000' };
    servers.push(...(await Promise.all(ports.map((port) => startServerProcess(port, env)))));
    proxy = await startLoadBalancer({ port: 0, host: '127.0.0.1', targets: ports, log: () => undefined });
    client = new TestClient(`http://127.0.0.1:${proxy.port}`);
  }, 120_000);

  afterAll(async () => {
    client?.closeSockets();
    await proxy?.close();
    for (const child of servers) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    await killRedisProcess(redis);
    await postgres?.stop();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('nothing is acknowledged without a commit, nothing twice, and sends succeed again within 10 s', async () => {
    const pairs = await Promise.all(Array.from({ length: PAIRS }, () => mutualPair(client, databaseUrl)));

    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        const socket: TestSocket = connectSocket(client.url, {
          auth: { token: b.token },
          transports: ['websocket'],
          reconnectionDelay: 100,
        });
        socket.on('message:new', (message) => {
          if (message.matchId === matchId) shown.set(message.id, message);
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        // A socket that dropped meanwhile missed what was sent while it was away: the app then asks
        // for everything after its last message (docs/chat.md), and so does this receiver, below.
        const receiver = { socket, shown, reconnected: false, resyncs: 0 };
        socket.io.on('reconnect', () => {
          receiver.reconnected = true;
        });
        // Told once the database answers again that events may be missing (a commit whose answer
        // was lost is never announced): the app then catches up, and so does this receiver.
        socket.on('realtime:resync', () => {
          receiver.resyncs++;
          void catchUpWhenAnswered(b, matchId).then((messages) => {
            for (const message of messages) shown.set(message.id, message);
          });
        });
        return receiver;
      }),
    );

    // The database goes down after pair 0's CRASH_AFTER-th send and is back DOWN_MS later.
    let downAt = 0;
    let upAt = 0;
    let outage: Promise<void> | undefined;
    const crashAndRestart = async () => {
      await postgres.crash();
      downAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
      postgres = await startDatabase();
      upAt = Date.now();
    };

    const answers = new Map<number, number>();
    const ackTimes: number[] = [];
    /** A send retried with the same clientId until it is acknowledged (201). */
    async function send(from: Person, matchId: number, k: number): Promise<number> {
      const clientId = randomUUID();
      for (let tries = 1; tries <= 400; tries++) {
        const res = await client
          .call('POST', '/api/chat', {
            token: from.token,
            body: { matchId, senderId: from.id, content: `m${k}`, clientId },
          })
          .catch(() => ({ status: 0, json: null, text: '' }));
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        if (res.status === 201) {
          ackTimes.push(Date.now());
          return (res.json as Message).id;
        }
        if (res.status !== 503) throw new Error(`a send was answered ${res.status}: ${res.text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('a send was never acknowledged');
    }

    /** The conversation from the start, asked until the database answers. */
    async function catchUpWhenAnswered(viewer: Person, matchId: number): Promise<Message[]> {
      for (let tries = 0; tries < 100; tries++) {
        const res = await client
          .call('GET', `/api/users/${viewer.id}/matches/${matchId}/messages?after=0&limit=100`, { token: viewer.token })
          .catch(() => ({ status: 0, json: null }));
        if (res.status === 200) return res.json as Message[];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the conversation never answered');
    }

    const acknowledged = pairs.map(() => new Set<number>());
    await Promise.all(
      pairs.map(async ({ a, matchId }, p) => {
        for (let k = 0; k < SENDS_PER_PAIR; k++) {
          if (p === 0 && k === CRASH_AFTER) outage = crashAndRestart();
          acknowledged[p]?.add(await send(a, matchId, k));
        }
      }),
    );
    await outage;
    expect(downAt).toBeGreaterThan(0);

    // Back within 10 s of the database: the first acknowledgement after it was up again.
    const firstAfter = Math.min(...ackTimes.filter((t) => t >= upAt));
    const backMs = firstAfter - upAt;

    // Every acknowledged message is stored exactly once: seqs 1..N per match, ids = the acknowledged.
    const orm = await initOrm(databaseUrl);
    let stored = 0;
    try {
      for (const [p, { matchId }] of pairs.entries()) {
        const rows = await sql<{ id: number; seq: number }>(
          orm.em.fork(),
          'select id, seq from messages where match_id = ? order by seq',
          [matchId],
        );
        expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: SENDS_PER_PAIR }, (_, i) => i + 1));
        expect(new Set(rows.map((r) => r.id))).toEqual(acknowledged[p]);
        stored += rows.length;
      }
    } finally {
      await orm.close();
    }
    const reconnected = receivers.filter((r) => r.reconnected).length;
    for (const [p, r] of receivers.entries()) {
      if (!r.reconnected) continue;
      const { b, matchId } = pairs[p] as (typeof pairs)[number];
      for (const message of (await catchUp(client, b, matchId, 0)).messages) r.shown.set(message.id, message);
    }
    await until(
      async () => receivers.every((r, p) => [...(acknowledged[p] ?? [])].every((id) => r.shown.has(id))),
      'every acknowledged message shown',
      20_000,
    );
    const sent = PAIRS * SENDS_PER_PAIR;
    const delivered = receivers.reduce((n, r) => n + r.shown.size, 0);
    console.log(
      `postgres restart: sent ${sent}, acknowledged ${acknowledged.reduce((n, s) => n + s.size, 0)}, ` +
        `stored ${stored}, delivered ${delivered}, duplicated ${stored - sent}, ` +
        `answered 503 meanwhile ${answers.get(503) ?? 0}, answered 500 ${answers.get(500) ?? 0}, ` +
        `database down ${upAt - downAt} ms, sends acknowledged again ${backMs} ms after it was up, ` +
        `receivers reconnected (caught up over REST) ${reconnected}/${receivers.length}, ` +
        `resync events ${receivers.reduce((n, r) => n + r.resyncs, 0)}`,
    );
    expect(stored).toBe(sent);
    expect(delivered).toBe(sent);
    expect(answers.get(500) ?? 0).toBe(0);
    expect(answers.get(503) ?? 0).toBeGreaterThan(0);
    // Every receiver was told to catch up once the database was back.
    expect(receivers.every((r) => r.resyncs > 0)).toBe(true);
    expect(backMs).toBeLessThan(10_000);
    // The same server processes throughout.
    expect(servers.every((s) => s.exitCode === null && s.signalCode === null)).toBe(true);
    for (const r of receivers) r.socket.disconnect();
  }, 90_000);
});
