// Rolling restarts (docs/operations.md, "Rolling out a new version"): two server processes behind
// HAProxy (deploy/haproxy.cfg) and two worker processes, each restarted one after another while people
// chat and use the API and jobs are in flight. A server told to stop reports not-ready for its drain
// notice (HAProxy stops sending it requests), finishes what is in progress and closes its sockets,
// whose clients reconnect to the other one and catch up. No request fails (each is sent once, never
// retried), no acknowledged message is lost or doubled; a worker told to stop finishes its jobs, and
// every job completes.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Message } from '@shared/index';
import { Redis } from 'ioredis';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoadBalancer, startLoadBalancer } from '../../../scripts/lib/load-balancer';
import { initOrm } from '../core/db/orm';
import { exited, failedJobs, portraitsMade, startServerProcess, startWorkerProcess } from '../test/app-process';
import { mutualPair, type Person } from '../test/chat-flow';
import { TestClient, type TestSocket, testEnv, uniqueName, until } from '../test/harness';
import { ownMigratedDatabase } from '../test/own-database';
import { freePort } from '../test/spotify-flow';

const PAIRS = 4;

describe('rolling restart of every server and worker under load', () => {
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let orm: MikroORM;
  let redis: Redis;
  let balancer: LoadBalancer;
  let client: TestClient;
  let tmp: string;
  let ports: number[];
  const servers: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  const em = () => orm.em.fork() as EntityManager;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_rolling_restart');
    orm = await initOrm(database.url);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-rolling-'));
    env = {
      DATABASE_URL: database.url,
      MEDIA_DIR: path.join(tmp, 'media'),
      CHAT_SEND_LIMIT: '1000',
      // As in production: HAProxy checks readiness every 2 s and takes an instance out after two
      // failures, so 5 s of notice is enough for it to stop sending new requests.
      DRAIN_NOTICE_SECONDS: '5',
    };
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    ports = [await freePort(), await freePort()];
    servers.push(...(await Promise.all(ports.map((port) => startServerProcess(port, env)))));
    for (let i = 0; i < 2; i++) workers.push(await startWorkerProcess({ ...env, LOG_LEVEL: 'silent' }, redis));
    balancer = await startLoadBalancer({ port: 0, targets: ports, log: () => undefined });
    client = new TestClient(`http://127.0.0.1:${balancer.port}`);
    await until(async () => (await balancer.up()).length === 2, 'both instances up behind HAProxy', 30_000);
  }, 120_000);

  afterAll(async () => {
    client?.closeSockets();
    await balancer?.close();
    for (const child of [...servers, ...workers]) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    redis?.disconnect();
    await orm?.close();
    await database?.drop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  async function catchUp(viewer: Person, matchId: number, after: number): Promise<Message[]> {
    const res = await client.call(
      'GET',
      `/api/users/${viewer.id}/matches/${matchId}/messages?after=${after}&limit=100`,
      {
        token: viewer.token,
      },
    );
    expect(res.status, res.text).toBe(200);
    return res.json as Message[];
  }

  /** Every message of the conversation, page after page. */
  async function everything(viewer: Person, matchId: number): Promise<Message[]> {
    const all: Message[] = [];
    for (;;) {
      const page = await catchUp(viewer, matchId, all.at(-1)?.seq ?? 0);
      all.push(...page);
      if (page.length < 100) return all;
    }
  }

  /** SIGTERM, a clean exit, and the same command again on the same port (a new version would be). */
  async function restartServer(i: number): Promise<void> {
    const old = servers[i] as ChildProcess;
    old.kill('SIGTERM');
    expect(await exited(old)).toBe(0);
    servers[i] = await startServerProcess(ports[i] as number, env);
    await until(async () => (await balancer.up()).includes(i), `instance ${i} back behind HAProxy`, 30_000);
  }

  it('servers one after another under chat and API load: no request fails, no message is lost', async () => {
    const pairs = await Promise.all(Array.from({ length: PAIRS }, () => mutualPair(client, database.url)));
    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        let lastSeq = 0;
        let reconnects = 0;
        const show = (message: Message) => {
          if (message.matchId !== matchId) return;
          shown.set(message.id, message);
          lastSeq = Math.max(lastSeq, message.seq);
        };
        const socket: TestSocket = connectSocket(client.url, {
          auth: { token: b.token },
          transports: ['websocket'],
          reconnectionDelay: 100,
          reconnectionDelayMax: 500,
        });
        socket.on('message:new', show);
        // The app catches up by seq after a reconnect, and retries a catch-up that failed (TanStack
        // Query's retries): one sent while a server closes can meet the closing connection.
        socket.io.on('reconnect', () => {
          reconnects++;
          const from = lastSeq;
          void (async () => {
            for (let attempt = 1; ; attempt++) {
              try {
                return (await catchUp(b, matchId, from)).forEach(show);
              } catch (error) {
                if (attempt === 10) throw error;
                await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
              }
            }
          })();
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return { socket, shown, reconnects: () => reconnects };
      }),
    );

    // The load: each pair sends and reads its matches in a loop; every request is sent once.
    const failures: string[] = [];
    const acknowledged = pairs.map(() => new Set<number>());
    let requests = 0;
    let running = true;
    const load = pairs.map(async ({ a, matchId }, p) => {
      for (let k = 0; running; k++) {
        const [sent, read] = await Promise.all([
          client
            .call('POST', '/api/chat', {
              token: a.token,
              body: { matchId, senderId: a.id, content: `r${k}`, clientId: randomUUID() },
            })
            .catch((error: Error) => ({ status: 0, text: error.message, json: null })),
          client
            .call('GET', `/api/users/${a.id}/matches`, { token: a.token })
            .catch((error: Error) => ({ status: 0, text: error.message, json: null })),
        ]);
        requests += 2;
        if (sent.status === 201) acknowledged[p]?.add((sent.json as unknown as Message).id);
        else failures.push(`POST /api/chat: ${sent.status} ${sent.text.slice(0, 120)}`);
        if (read.status !== 200) failures.push(`GET matches: ${read.status} ${read.text.slice(0, 120)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      for (const i of [0, 1]) await restartServer(i);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    } finally {
      // The load stops even when a restart failed, so the failure is reported, not a hang.
      running = false;
      await Promise.all(load);
    }

    expect(failures).toEqual([]);
    await until(
      async () => receivers.every((r, p) => [...(acknowledged[p] ?? [])].every((id) => r.shown.has(id))),
      'every acknowledged message shown',
      20_000,
    );
    let stored = 0;
    for (const [p, { b, matchId }] of pairs.entries()) {
      const all = await everything(b, matchId);
      expect(all.map((m) => m.seq)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
      expect(new Set(all.map((m) => m.id))).toEqual(acknowledged[p]);
      stored += all.length;
    }
    // Both instances were restarted under each receiver: every socket moved at least once.
    expect(receivers.every((r) => r.reconnects() > 0 && r.socket.connected)).toBe(true);
    console.log(
      `rolling restart (servers): ${requests} requests, ${failures.length} failed; ${stored} messages stored once ` +
        `and shown; ${receivers.reduce((n, r) => n + r.reconnects(), 0)} socket reconnects`,
    );
    for (const r of receivers) r.socket.disconnect();
  }, 180_000);

  it('workers one after another with jobs in flight: every job completes, none fails', async () => {
    const before = await Promise.all(Array.from({ length: 20 }, () => client.login(uniqueName('rolling'))));
    const people = before.map((p) => p.user.id);
    for (const i of [0, 1]) {
      // More jobs while this worker stops (each account's portrait, staged in the outbox).
      const during = Promise.all(Array.from({ length: 10 }, () => client.login(uniqueName('rolling'))));
      const old = workers[i] as ChildProcess;
      old.kill('SIGTERM');
      expect(await exited(old)).toBe(0);
      workers[i] = await startWorkerProcess({ ...env, LOG_LEVEL: 'silent' }, redis);
      people.push(...(await during).map((p) => p.user.id));
    }
    await until(async () => (await portraitsMade(em(), people)) === people.length, 'every portrait made', 60_000);
    const failed = await failedJobs(redis);
    expect(failed).toBe(0);
    console.log(`rolling restart (workers): ${people.length} portraits made, ${failed} jobs failed`);
  }, 180_000);
});
