// Socket limits (docs/chat.md, "Socket limits"), against an in-process server and a real second
// server process sharing PostgreSQL and Redis: a flood of typing signals naming made-up matches is
// refused past the person's allowance and costs almost no queries, the allowance is one count for
// every socket of the person on both instances, and an 11th socket closes the person's oldest,
// wherever it is, with a reason. Both servers believe one proxy hop (TRUST_PROXY=1): the test plays
// the proxy, so every person acts from an address of their own.
import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { type Ack, RATE_LIMIT_TEXTS, rooms, SOCKETS_PER_PERSON } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_POLICIES } from '../http/rate-limits';
import { exited, startServerProcess } from '../test/app-process';
import { EventLog, emitRaw, type Person } from '../test/chat-flow';
import { shareAShow } from '../test/feed-fixture';
import {
  collectEvents,
  startTestServer,
  TestClient,
  type TestServer,
  type TestSocket,
  uniqueName,
  until,
} from '../test/harness';
import { freePort } from '../test/spotify-flow';

/** The real allowances; the proxy's address header is believed for one hop. */
const ENV = { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1', CHAT_SEND_LIMIT: '1000' };
const ALLOWANCE = RATE_LIMIT_POLICIES.socketEvents.perUser.points;

/** A fresh documentation-range address per call, so no other test's traffic shares its counters. */
const address = () => `203.0.${randomInt(0, 114)}.${randomInt(1, 255)}`;
const via = (ip: string) => ({ 'x-forwarded-for': ip });

async function signIn(server: TestClient): Promise<Person> {
  const res = await server.call('POST', '/api/auth/dev-login', {
    body: { username: uniqueName() },
    headers: via(address()),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return { token: res.json.token, id: res.json.user.id };
}

/** Two fresh people, each in the other's feed, who liked each other: their match id. */
async function mutualPair(server: TestClient): Promise<{ a: Person; b: Person; matchId: number }> {
  const [a, b] = await Promise.all([signIn(server), signIn(server)]);
  await shareAShow([[a, b]]);
  const like = (from: Person, to: Person) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      headers: via(address()),
      body: { user1Id: from.id, user2Id: to.id, intent: 'platonic', user1Liked: true },
    });
  await like(a, b);
  const res = await like(b, a);
  expect(res.json?.isMutualMatch, res.text).toBe(true);
  return { a, b, matchId: res.json.id as number };
}

const statusOf = (ack: Ack<unknown>) => (ack.ok ? 200 : ack.error.status);
const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => Object.assign(acc, { [s]: (acc[s] ?? 0) + 1 }), {});

describe('socket limits across two server instances', () => {
  let one: TestServer;
  let two: TestClient;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    one = await startTestServer(ENV);
    const port = await freePort();
    child = await startServerProcess(port, ENV);
    two = new TestClient(`http://127.0.0.1:${port}`);
  });

  afterAll(async () => {
    two?.closeSockets();
    if (child && child.exitCode === null) {
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
    }
    await one?.close();
  });

  it('typing for thousands of made-up matches: refused past the allowance, a bounded number of queries, others unaffected', async () => {
    const { a, b, matchId } = await mutualPair(one);
    const attacker = await signIn(one);
    const [aSocket, bSocket] = await Promise.all([
      one.socket(a.token, via(address())),
      one.socket(b.token, via(address())),
    ]);
    const flooder = await one.socket(attacker.token, via(address()));
    const bLog = new EventLog(bSocket, ['typing']);
    // Settled: the connect-time work (badges, presence) is done.
    await Promise.all([aSocket, bSocket, flooder].map((s) => s.timeout(10_000).emitWithAck('ping')));
    await one.running.deps.badges.idle();

    // Every statement the in-process server sends to PostgreSQL, but the outbox relay's polling.
    const connection = one.running.deps.orm.em.getConnection();
    const execute = connection.execute.bind(connection);
    const statements: string[] = [];
    connection.execute = ((query: unknown, ...rest: unknown[]) => {
      const text = String(query);
      if (!text.includes('job_outbox')) statements.push(text);
      return (execute as (...args: unknown[]) => unknown)(query, ...rest);
    }) as typeof connection.execute;
    const flood = 3000;
    let acks: Ack<unknown>[];
    try {
      acks = await Promise.all(
        Array.from({ length: flood }, (_, i) =>
          emitRaw(flooder, 'typing', { matchId: 1_000_000_000 + i, typing: i % 2 === 0 }),
        ),
      );
    } finally {
      connection.execute = execute;
    }
    const counts = tally(acks.map(statusOf));
    // Reads of the matches table: what each signal would cost without the limits.
    const lookups = statements.filter((text) => /\bfrom matches\b/.test(text));
    console.log(
      `typing flood: ${flood} signals for made-up matches -> ${counts[404] ?? 0} answered 404, ` +
        `${counts[429] ?? 0} refused 429; ${lookups.length} reads of matches (${statements.length} statements in all)`,
    );
    // The allowance's worth (less the ping above) reached the chat code, which refused the made-up
    // matches without a query each (one read of the attacker's live matches); the rest never got
    // that far.
    expect(counts).toEqual({ 404: ALLOWANCE - 1, 429: flood - ALLOWANCE + 1 });
    expect(lookups.length).toBeLessThanOrEqual(2);
    const refused = acks.find((ack) => !ack.ok && ack.error.status === 429);
    expect(refused).toMatchObject({
      ok: false,
      error: { code: 'rate_limited', message: RATE_LIMIT_TEXTS.socketEvents },
    });

    // Everyone else chats on: a's typing reaches b, and b's presence question is answered.
    aSocket.emit('typing', { matchId, typing: true });
    await bLog.until((log) => log.of('typing').length === 1, "a's typing at b");
    expect(bLog.of('typing')).toEqual([{ matchId, userId: a.id, typing: true }]);
    const presence = await bSocket.timeout(10_000).emitWithAck('presence:get', { matchId });
    expect(presence).toEqual({ ok: true, data: { online: true } });
  });

  it('the allowance is one count for all of a person’s sockets on both instances', async () => {
    const me = await signIn(one);
    const sockets = [await one.socket(me.token, via(address())), await two.socket(me.token, via(address()))];
    const other = await signIn(two);
    const otherSocket = await two.socket(other.token, via(address()));
    // Pings from both sockets at once, one and a half allowances' worth.
    const total = Math.round(ALLOWANCE * 1.5);
    // A refused ping is answered with the 429 (the ack every refused event gets).
    const answers = (await Promise.all(
      Array.from({ length: total }, (_, i) => (sockets[i % 2] as TestSocket).timeout(10_000).emitWithAck('ping')),
    )) as unknown as ({ serverTime: string } | Ack<never>)[];
    const answered = answers.filter((answer) => 'serverTime' in answer);
    const refused = answers.filter((answer) => 'ok' in answer && !answer.ok && answer.error.status === 429);
    console.log(`pings from two sockets on two instances: ${answered.length} answered, ${refused.length} refused`);
    expect(answered).toHaveLength(ALLOWANCE);
    expect(refused).toHaveLength(total - ALLOWANCE);
    // Another person on the same instance is not touched by it.
    expect(await otherSocket.timeout(10_000).emitWithAck('ping')).toHaveProperty('serverTime');
  });

  it(`an ${SOCKETS_PER_PERSON + 1}th socket closes the person’s oldest, on whichever instance, with a reason`, async () => {
    const me = await signIn(one);
    const bystander = await signIn(one);
    const bystanderSockets = await Promise.all([one.socket(bystander.token), two.socket(bystander.token)]);
    // One after the other, alternating instances, the first on the process.
    const open = async (i: number) => {
      const socket = await (i % 2 === 0 ? two : one).socket(me.token, via(address()));
      return { socket, closed: collectEvents(socket, 'connection:closed') };
    };
    const mine: Awaited<ReturnType<typeof open>>[] = [];
    for (let i = 0; i < SOCKETS_PER_PERSON; i++) mine.push(await open(i));
    expect(mine.every((s) => s.socket.connected)).toBe(true);

    // The 11th (on the in-process server) closes the 1st (on the process); the 12th (on the process),
    // the 2nd (in-process).
    for (const [newer, oldest] of [
      [SOCKETS_PER_PERSON, 0],
      [SOCKETS_PER_PERSON + 1, 1],
    ] as const) {
      const victim = mine[oldest];
      if (!victim) throw new Error('no socket');
      let reason = '';
      victim.socket.once('disconnect', (why) => {
        reason = why;
      });
      mine.push(await open(newer));
      expect(await until(async () => reason, 'the oldest socket to be closed', 10_000)).toBe('io server disconnect');
      expect(victim.closed).toEqual([['too_many_connections']]);
    }
    const connected = mine.filter((s) => s.socket.connected);
    expect(connected).toHaveLength(SOCKETS_PER_PERSON);
    expect(connected.every((s) => s.closed.length === 0)).toBe(true);
    expect(await one.running.io.in(rooms.user(me.id)).fetchSockets()).toHaveLength(SOCKETS_PER_PERSON);
    // Nobody else lost a socket.
    expect(bystanderSockets.every((s) => s.connected)).toBe(true);
  });

  it(`${SOCKETS_PER_PERSON + 5} sockets of one person opening at once on both instances: ${SOCKETS_PER_PERSON} stay`, async () => {
    const me = await signIn(one);
    const many = SOCKETS_PER_PERSON + 5;
    const sockets = await Promise.all(
      Array.from({ length: many }, async (_, i) => {
        const socket = await (i % 2 ? two : one).socket(me.token, via(address()));
        return { socket, closed: collectEvents(socket, 'connection:closed') };
      }),
    );
    await until(
      async () => sockets.filter((s) => !s.socket.connected).length === many - SOCKETS_PER_PERSON,
      'the extra sockets to be closed',
    );
    expect(await one.running.io.in(rooms.user(me.id)).fetchSockets()).toHaveLength(SOCKETS_PER_PERSON);
    // Each closed one was told why (the reason may race the socket's own connect listener: the
    // closed ones that registered in time have it, and no open one has it).
    expect(sockets.filter((s) => s.socket.connected).every((s) => s.closed.length === 0)).toBe(true);
  });
});
