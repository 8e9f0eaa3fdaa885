// A server instance killed with SIGKILL under chat load (docs/operations.md, "Faults"): two real
// server processes behind HAProxy (scripts/lib/load-balancer.ts, deploy/haproxy.cfg), the receivers' sockets on the
// instance that dies. Their clients reconnect through the proxy to the other instance and catch up by
// seq; senders retry refused sends with the same clientId. Nothing acknowledged is lost, nothing is
// stored or shown twice.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Message } from '@shared/index';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTANCE_COOKIE, type LoadBalancer, startLoadBalancer } from '../../../scripts/lib/load-balancer';
import { initOrm } from '../core/db/orm';
import { sql } from '../core/db/sql';
import { startServerProcess } from '../test/app-process';
import { mutualPair, type Person } from '../test/chat-flow';
import { TestClient, type TestSocket, until } from '../test/harness';
import { freePort } from '../test/spotify-flow';
import { testDatabaseUrl } from '../test/test-stack';

const PAIRS = 8;
const SENDS_PER_PAIR = 30;
const KILL_AFTER = 10;

describe('a server instance killed under chat load', () => {
  const servers: ChildProcess[] = [];
  let proxy: LoadBalancer;
  let client: TestClient;
  let orm: MikroORM;
  const db = () => orm.em.fork();

  beforeAll(async () => {
    const ports = [await freePort(), await freePort()];
    servers.push(...(await Promise.all(ports.map((port) => startServerProcess(port)))));
    proxy = await startLoadBalancer({ port: 0, host: '127.0.0.1', targets: ports, log: () => undefined });
    client = new TestClient(`http://127.0.0.1:${proxy.port}`);
    orm = await initOrm(testDatabaseUrl());
  });

  afterAll(async () => {
    await orm?.close();
    await proxy?.close();
    for (const child of servers) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });

  /** A call through the proxy, kept on `instance` while it lives (the browser's sticky cookie). */
  const on = (instance: number) => ({ cookie: `${INSTANCE_COOKIE}=${instance}` });

  it('its clients reconnect to the other instance and catch up: nothing lost, nothing twice', async () => {
    const pairs = await Promise.all(Array.from({ length: PAIRS }, () => mutualPair(client)));

    // Every receiver's socket on instance 0, the one that dies; what it shows, by message id.
    const receivers = await Promise.all(
      pairs.map(async ({ b, matchId }) => {
        const shown = new Map<number, Message>();
        let eventsTwice = 0;
        let lastSeq = 0;
        const socket: TestSocket = connectSocket(client.url, {
          auth: { token: b.token },
          transports: ['websocket'],
          extraHeaders: on(0),
          reconnectionDelay: 100,
          reconnectionDelayMax: 500,
        });
        const show = (message: Message) => {
          if (message.matchId !== matchId) return;
          shown.set(message.id, message);
          lastSeq = Math.max(lastSeq, message.seq);
        };
        socket.on('message:new', (message) => {
          if (shown.has(message.id)) eventsTwice++;
          show(message);
        });
        // After a reconnect, the client catches up by seq (as the app does).
        let reconnects = 0;
        socket.io.on('reconnect', () => {
          reconnects++;
          void catchUp(b, matchId, () => lastSeq).then((messages) => messages.forEach(show));
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return { socket, shown, matchId, counts: () => ({ eventsTwice, reconnects }) };
      }),
    );

    async function catchUp(viewer: Person, matchId: number, after: () => number): Promise<Message[]> {
      for (let attempt = 0; attempt < 50; attempt++) {
        const res = await client.call(
          'GET',
          `/api/users/${viewer.id}/matches/${matchId}/messages?after=${after()}&limit=100`,
          {
            token: viewer.token,
            headers: on(0),
          },
        );
        if (res.status === 200) return res.json as Message[];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('catch-up never answered');
    }

    /** A send retried (same clientId) until the service answers 201: what the app's outbox does. */
    async function send(from: Person, matchId: number, k: number): Promise<{ id: number; tries: number }> {
      const clientId = randomUUID();
      for (let tries = 1; tries <= 100; tries++) {
        const res = await client
          .call('POST', '/api/chat', {
            token: from.token,
            headers: on(k % 2),
            body: { matchId, senderId: from.id, content: `m${k}`, clientId },
          })
          .catch(() => ({ status: 0, json: null }));
        if (res.status === 201) return { id: (res.json as Message).id, tries };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('a send was never acknowledged');
    }

    const acknowledged = pairs.map(() => new Set<number>());
    let retried = 0;
    const senders = pairs.map(async ({ a, matchId }, p) => {
      for (let k = 0; k < SENDS_PER_PAIR; k++) {
        if (p === 0 && k === KILL_AFTER) servers[0]?.kill('SIGKILL');
        const { id, tries } = await send(a, matchId, k);
        acknowledged[p]?.add(id);
        if (tries > 1) retried++;
      }
    });
    await Promise.all(senders);

    // Every acknowledged message reaches its receiver, over the new connection or by catch-up.
    await until(
      async () => receivers.every((r, p) => [...(acknowledged[p] ?? [])].every((id) => r.shown.has(id))),
      'every acknowledged message shown',
      20_000,
    );
    const sent = PAIRS * SENDS_PER_PAIR;
    const delivered = receivers.reduce((n, r) => n + r.shown.size, 0);
    const eventsTwice = receivers.reduce((n, r) => n + r.counts().eventsTwice, 0);
    // Stored once each: seqs 1..N per match, N = the sends acknowledged.
    let stored = 0;
    for (const [p, { b, matchId }] of pairs.entries()) {
      const all = await catchUp(b, matchId, () => 0);
      expect(all.map((m) => m.seq)).toEqual(Array.from({ length: SENDS_PER_PAIR }, (_, i) => i + 1));
      expect(new Set(all.map((m) => m.id))).toEqual(acknowledged[p]);
      stored += all.length;
    }
    console.log(
      `failover: sent ${sent}, acknowledged ${acknowledged.reduce((n, s) => n + s.size, 0)}, stored ${stored}, ` +
        `delivered ${delivered}, duplicated ${stored - sent}, events twice ${eventsTwice}, sends retried ${retried}, ` +
        `receivers reconnected ${receivers.filter((r) => r.counts().reconnects > 0).length}/${PAIRS}`,
    );
    expect(delivered).toBe(sent);
    expect(stored).toBe(sent);
    expect(receivers.every((r) => r.counts().reconnects > 0 && r.socket.connected)).toBe(true);
    expect(await proxy.up()).toEqual([1]);
    for (const r of receivers) r.socket.disconnect();
  });

  it('SIGTERM with sends in flight: the instance finishes them, exits 0, and every acknowledged send is stored', async () => {
    const { a, b, matchId } = await mutualPair(client);
    const live = servers[1] as ChildProcess;
    const exit = new Promise<number | null>((resolve) => live.once('exit', (code) => resolve(code)));
    const sends = Array.from({ length: 40 }, (_, k) =>
      client
        .call('POST', '/api/chat', {
          token: a.token,
          headers: on(1),
          body: { matchId, senderId: a.id, content: `t${k}`, clientId: randomUUID() },
        })
        .then(
          (res) => (res.status === 201 ? (res.json as Message).id : null),
          () => null,
        ),
    );
    // In flight: the first of them is stored, the others are on their way.
    await until(
      async () => (await sql<{ id: number }>(db(), 'select id from messages where match_id = ?', [matchId])).length > 0,
      'a first send stored',
    );
    live.kill('SIGTERM');
    const acked = (await Promise.all(sends)).filter((id): id is number => id !== null);
    // 0: it finished within its own shutdown deadline (10 s; core/lifecycle.ts exits 1 past it).
    expect(await exit).toBe(0);
    // Read straight from the database: no server is left.
    const rows = await sql<{ id: number }>(db(), 'select id from messages where match_id = ?', [matchId]);
    const stored = new Set(rows.map((r) => r.id));
    console.log(`sigterm: sends 40, acknowledged ${acked.length}, stored ${stored.size}`);
    expect(acked.length).toBeGreaterThan(0);
    for (const id of acked) expect(stored.has(id)).toBe(true);
    expect(b.id).toBeGreaterThan(0);
  });
});
