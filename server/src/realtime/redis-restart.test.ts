// Redis killed and started again under chat load (docs/operations.md, "Faults"): a real server
// process on a Redis of this test's own (PostgreSQL as usual). Sends keep being stored while Redis is
// away; the events published meanwhile are lost, so receivers catch up by seq when the next message
// shows a gap (as the app's conversation cache does). Nothing acknowledged is lost or stored twice,
// and the same server process carries on: no restart.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Message } from '@shared/index';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appProcessArgs } from '../test/app-process';
import { mutualPair, type Person } from '../test/chat-flow';
import { TestClient, type TestSocket, testEnv, until } from '../test/harness';
import { ownMigratedDatabase } from '../test/own-database';
import { killRedisProcess, startRedisProcess } from '../test/redis-process';
import { freePort } from '../test/spotify-flow';

const PAIRS = 4;
const SENDS_PER_PAIR = 30;
const KILL_AFTER = 10;

describe('Redis restarted under chat load', () => {
  let redisPort: number;
  let redis: ChildProcess | undefined;
  let server: ChildProcess;
  let client: TestClient;
  let output = '';
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_redis_restart');
    redisPort = await freePort();
    redis = await startRedisProcess(redisPort);
    const port = await freePort();
    server = spawn(process.execPath, appProcessArgs('server'), {
      env: {
        ...process.env,
        ...testEnv({
          PORT: String(port),
          LOG_LEVEL: 'error',
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          DATABASE_URL: database.url,
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [server.stdout, server.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        output = (output + chunk).slice(-4000);
      });
    }
    client = new TestClient(`http://127.0.0.1:${port}`);
    await until(async () => {
      if (server.exitCode !== null) throw new Error(`the server exited: ${output}`);
      return fetch(`${client.url}/api/health`).then(
        () => true,
        () => false,
      );
    }, 'the server process to listen');
  });

  afterAll(async () => {
    client?.closeSockets();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await killRedisProcess(redis);
    await database?.drop();
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

  /** A send retried with the same clientId until it is acknowledged; the stored message's id. */
  async function sendUntilStored(from: Person, matchId: number, content: string): Promise<number> {
    const clientId = randomUUID();
    for (let tries = 0; tries < 150; tries++) {
      const res = await client
        .call('POST', '/api/chat', { token: from.token, body: { matchId, senderId: from.id, content, clientId } })
        .catch(() => ({ status: 0, json: null }));
      if (res.status === 201) return (res.json as Message).id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`a send was never acknowledged: ${output.slice(-800)}`);
  }

  it('every acknowledged message is stored once and shown once; the server process carries on', async () => {
    const pairs = await Promise.all(Array.from({ length: PAIRS }, () => mutualPair(client, database.url)));

    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        let contiguous = 0;
        let byEvent = 0;
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
          byEvent++;
          // A gap: events were lost while Redis was away; fetch what is missing.
          if (message.seq > contiguous + 1) void catchUp(b, matchId, contiguous).then((all) => all.forEach(show));
          show(message);
        });
        socket.io.on('reconnect', () => void catchUp(b, matchId, contiguous).then((all) => all.forEach(show)));
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return { socket, shown, byEvent: () => byEvent };
      }),
    );

    const acknowledged = pairs.map(() => new Set<number>());
    let failedTries = 0;
    const senders = pairs.map(async ({ a, matchId }, p) => {
      for (let k = 0; k < SENDS_PER_PAIR; k++) {
        if (p === 0 && k === KILL_AFTER) {
          await killRedisProcess(redis);
          setTimeout(() => {
            void startRedisProcess(redisPort).then((child) => {
              redis = child;
            });
          }, 1500);
        }
        const clientId = randomUUID();
        let lastAnswer = '';
        for (let tries = 0; ; tries++) {
          if (tries > 150) throw new Error(`a send was never acknowledged: ${lastAnswer} ${output.slice(-800)}`);
          const res = await client
            .call('POST', '/api/chat', {
              token: a.token,
              body: { matchId, senderId: a.id, content: `r${k}`, clientId },
            })
            .catch((error: Error) => ({ status: 0, json: null, text: error.message }));
          lastAnswer = `${res.status} ${'text' in res ? String(res.text).slice(0, 200) : ''}`;
          if (res.status === 201) {
            acknowledged[p]?.add((res.json as Message).id);
            break;
          }
          failedTries++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // Spread over about 5 s, so every pair goes on sending once Redis is back.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    });
    await Promise.all(senders);

    await until(
      async () => receivers.every((r, p) => [...(acknowledged[p] ?? [])].every((id) => r.shown.has(id))),
      'every acknowledged message shown',
      20_000,
    );
    let stored = 0;
    for (const [p, { b, matchId }] of pairs.entries()) {
      const all = await catchUp(b, matchId, 0);
      expect(all.map((m) => m.seq)).toEqual(Array.from({ length: SENDS_PER_PAIR }, (_, i) => i + 1));
      expect(new Set(all.map((m) => m.id))).toEqual(acknowledged[p]);
      stored += all.length;
    }
    const sent = PAIRS * SENDS_PER_PAIR;
    const delivered = receivers.reduce((n, r) => n + r.shown.size, 0);
    const byEvent = receivers.reduce((n, r) => n + r.byEvent(), 0);
    console.log(
      `redis restart: sent ${sent}, stored ${stored}, delivered ${delivered} (${byEvent} by event, the rest by catch-up), ` +
        `duplicated ${stored - sent}, refused tries retried ${failedTries}`,
    );
    expect(stored).toBe(sent);
    expect(delivered).toBe(sent);
    // The same process throughout, and events flow again through the new Redis.
    expect(server.exitCode).toBeNull();
    expect(byEvent).toBeGreaterThan(0);
    for (const r of receivers) r.socket.disconnect();
  }, 60_000);

  it('messages sent while Redis is away reach an open conversation once it is back, with no further message', async () => {
    const pairs = await Promise.all([
      mutualPair(client, database.url),
      mutualPair(client, database.url),
      mutualPair(client, database.url),
    ]);
    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        let resyncs = 0;
        const show = (message: Message) => shown.set(message.id, message);
        const socket = await client.socket(b.token);
        socket.on('message:new', (message) => {
          if (message.matchId === matchId) show(message);
        });
        // What the app does on this event, and on a reconnection: catch up after the last message it has.
        const catchUpNow = () => {
          const last = Math.max(0, ...[...shown.values()].map((m) => m.seq));
          void catchUp(b, matchId, last).then((all) => all.forEach(show));
        };
        let reconnects = 0;
        socket.on('realtime:resync', () => {
          resyncs++;
          catchUpNow();
        });
        socket.io.on('reconnect', () => {
          reconnects++;
          catchUpNow();
        });
        return { socket, shown, resyncs: () => resyncs, reconnects: () => reconnects };
      }),
    );

    await killRedisProcess(redis);
    const acknowledged = await Promise.all(
      pairs.map(async ({ a, matchId }) => {
        const ids: number[] = [];
        for (let k = 0; k < 5; k++) ids.push(await sendUntilStored(a, matchId, `away ${k}`));
        return ids;
      }),
    );
    // None of them arrived live: their events went nowhere.
    expect(receivers.every((r) => r.shown.size === 0)).toBe(true);
    redis = await startRedisProcess(redisPort);

    const figures = () =>
      `acknowledged while away ${acknowledged.flat().length}, ` +
      `shown after it came back ${receivers.reduce((n, r) => n + r.shown.size, 0)}, ` +
      `resync events ${receivers.reduce((n, r) => n + r.resyncs(), 0)}, ` +
      `reconnections ${receivers.reduce((n, r) => n + r.reconnects(), 0)}`;
    await until(
      async () => receivers.every((r, p) => (acknowledged[p] ?? []).every((id) => r.shown.has(id))),
      'the messages sent while Redis was away shown',
      15_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message} (${figures()}); server output: ${output.slice(-2000)}`);
    });
    console.log(`redis restart, nothing sent after it: ${figures()}`);
    // Every open socket was told (it never dropped, so only the resync could bring them).
    expect(receivers.every((r) => r.resyncs() >= 1 || r.reconnects() >= 1)).toBe(true);
    expect(receivers.reduce((n, r) => n + r.resyncs(), 0)).toBeGreaterThan(0);
    expect(server.exitCode).toBeNull();
  }, 60_000);
});
