// Chat that loses nothing (docs/chat.md): sends over REST and socket, idempotent per clientId, one
// seq per message per match, catch-up after being away, read receipts, unread marks, typing,
// presence, and who may do or hear what. No sleeps: events that must not arrive are checked with
// a sentinel (drainEvents) that travels the same way after them.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BadgeCounts, MatchView, Message } from '@shared/index';
import { CHAT_TEXTS, LIMITS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapLimit } from '../../../../scripts/lib/map-limit';
import { sql } from '../../core/db/sql';
import {
  catchUp,
  EventLog,
  emitRaw,
  expectSeqs,
  listPath,
  mutualPair,
  type Person,
  person,
  sendRest,
  sendSocket,
} from '../../test/chat-flow';
import { drainEvents, startTestServer, type TestServer, type TestSocket } from '../../test/harness';

const CHAT_EVENTS = [
  'message:new',
  'message:read',
  'typing',
  'presence',
  'badges:update',
  'badges:unread',
  'match:removed',
] as const;

describe('chat', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    // These tests send hundreds of messages per person; the limit itself: chat-instances.test.ts.
    server = await startTestServer({ CHAT_SEND_LIMIT: '100000' });
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  const rows = (matchId: number) =>
    sql<{ seq: number; sender_id: number; client_id: string | null; content: string }>(
      em.fork(),
      'select seq, sender_id, client_id, content from messages where match_id = ? order by seq',
      [matchId],
    );
  const drain = (socket: TestSocket, p: Person) => drainEvents(server, socket, p);
  const getMatch = async (p: Person, matchId: number) =>
    (await server.call('GET', `/api/matches/${matchId}`, { token: p.token })).json as MatchView;

  describe('REST', () => {
    it('stores text exactly as sent, numbers it per match, and pages it newest, before and after', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const tricky = '<script>alert("x")</script> & <b>bold</b>\n  two lines 🎧';
      const first = await sendRest(server, a, matchId, tricky, randomUUID());
      expect(first.status, first.text).toBe(201);
      expect(first.json).toMatchObject({ matchId, senderId: a.id, content: tricky, seq: 1 });
      for (let i = 2; i <= 7; i++) {
        const from = i % 2 ? a : b;
        expect((await sendRest(server, from, matchId, `message ${i}`)).json.seq).toBe(i);
      }
      const newest = await server.call('GET', listPath(b, matchId, 'limit=3'), { token: b.token });
      expect(newest.json.map((m: Message) => m.seq)).toEqual([5, 6, 7]);
      const older = await server.call('GET', listPath(b, matchId, 'before=5&limit=3'), { token: b.token });
      expect(older.json.map((m: Message) => m.seq)).toEqual([2, 3, 4]);
      const after = await server.call('GET', listPath(a, matchId, 'after=4&limit=2'), { token: a.token });
      expect(after.json.map((m: Message) => m.seq)).toEqual([5, 6]);
      const all = await server.call('GET', listPath(a, matchId), { token: a.token });
      expect(all.json).toHaveLength(7);
      expect(all.json[0].content).toBe(tricky);
      expect((await rows(matchId))[0]?.content).toBe(tricky);
      const both = await server.call('GET', listPath(a, matchId, 'before=3&after=1'), { token: a.token });
      expect(both.status).toBe(400);
      const tooMany = await server.call('GET', listPath(a, matchId, `limit=${LIMITS.messagePageMax + 1}`), {
        token: a.token,
      });
      expect(tooMany.status).toBe(400);
    });

    it('refuses blank, too long, malformed and someone else’s sends', async () => {
      const { a, b, matchId } = await mutualPair(server);
      expect((await sendRest(server, a, matchId, '   \n ')).status).toBe(400);
      const long = await sendRest(server, a, matchId, 'x'.repeat(LIMITS.messageMaxLength + 1));
      expect(long.status).toBe(400);
      expect(long.json.message).toContain(CHAT_TEXTS.tooLong);
      expect((await sendRest(server, a, matchId, 'x'.repeat(LIMITS.messageMaxLength))).status).toBe(201);
      expect((await sendRest(server, a, matchId, 'hi', 'not-a-uuid')).status).toBe(400);
      const extra = await server.call('POST', '/api/chat', {
        token: a.token,
        body: { matchId, senderId: a.id, content: 'hi', seq: 99 },
      });
      expect(extra.status).toBe(400);
      // As the other person: 403, whoever the caller is.
      const asOther = await server.call('POST', '/api/chat', {
        token: a.token,
        body: { matchId, senderId: b.id, content: 'I am b' },
      });
      expect(asOther.status).toBe(403);
      expect(await rows(matchId)).toHaveLength(1);
    });

    it('fills the match view: shared podcasts (visible, explained first, then by name), counts, seqs', async () => {
      const { a, b, matchId } = await mutualPair(server);
      // Nothing shared to begin with: the pair's fixture show and candidate rows go.
      await sql(em.fork(), 'delete from user_podcasts where user_id in (?, ?)', [a.id, b.id]);
      await sql(em.fork(), 'delete from feed_candidates where user_id in (?, ?)', [a.id, b.id]);
      const c = await person(server);
      const names = Array.from({ length: 13 }, (_, i) => `Chat show ${String(i).padStart(2, '0')} ${randomUUID()}`);
      const ids: number[] = [];
      for (const name of names) {
        const [row] = await sql<{ id: number }>(
          em.fork(),
          `insert into podcasts (name, creator, created_at) values (?, 'Host', now()) returning id`,
          [name],
        );
        ids.push(row!.id);
      }
      // Both list the 13 shows; a hides the last one; c shares only the first with a.
      for (const [i, id] of ids.entries()) {
        for (const p of [a, b]) {
          await sql(
            em.fork(),
            'insert into user_podcasts (user_id, podcast_id, hidden, times_listened) values (?, ?, ?, 1)',
            [p.id, id, p === a && i === 12],
          );
        }
      }
      await sql(
        em.fork(),
        'insert into user_podcasts (user_id, podcast_id, hidden, times_listened) values (?, ?, false, 1)',
        [c.id, ids[0]],
      );
      // The stored explanation names shows 7 and 3 first (and the hidden 12, which never shows).
      await sql(
        em.fork(),
        `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids) values (?, ?, 80, 0.8, ?::int[])`,
        [a.id, b.id, `{${ids[12]},${ids[7]},${ids[3]}}`],
      );
      const expected = [ids[7], ids[3], ...ids.slice(0, 12).filter((_, i) => i !== 7 && i !== 3)].slice(0, 10);
      const view = await getMatch(a, matchId);
      expect(view.sharedPodcastCount).toBe(12);
      expect(view.sharedPodcasts.map((p) => p.id)).toEqual(expected);
      expect(view.sharedPodcasts[0]).toEqual({ id: ids[7], name: names[7], creator: 'Host', imageUrl: null });
      const [listed] = (await server.call('GET', `/api/users/${a.id}/matches?intent=romantic`, { token: a.token }))
        .json as MatchView[];
      expect(listed?.sharedPodcasts.map((p) => p.id)).toEqual(expected);
      expect(listed?.sharedPodcastCount).toBe(12);
      // b sees the same shows (a's hidden one neither); b's own candidate row is missing: a's explains.
      expect((await getMatch(b, matchId)).sharedPodcasts.map((p) => p.id)).toEqual(expected);
      expect(view).toMatchObject({ lastMessageSeq: 0, readSeq: 0, otherReadSeq: 0 });
    });

    it('read receipts: read seq never beyond the newest nor backwards, told to both, unread marks and badges follow', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const [aSocket, bSocket] = [await server.socket(a.token), await server.socket(b.token)];
      const aLog = new EventLog(aSocket, [...CHAT_EVENTS]);
      const bLog = new EventLog(bSocket, [...CHAT_EVENTS]);
      // A new match is unread for both until opened.
      expect((await getMatch(a, matchId)).hasUnreadMessages).toBe(true);
      const opened = await server.call('POST', `/api/matches/${matchId}/read`, { token: b.token, body: { seq: 0 } });
      expect(opened.json).toMatchObject({ hasUnreadMessages: false, readSeq: 0 });

      for (const text of ['one', 'two', 'three']) await sendRest(server, a, matchId, text);
      await bLog.until((l) => l.messages().length === 3, 'three messages at b');
      await bLog.until(
        (l) => l.of<Pick<BadgeCounts, 'unreadMatches'>>('badges:unread').at(-1)?.unreadMatches.romantic === 1,
        "b's badge counting the unread conversation",
      );
      expect(await getMatch(b, matchId)).toMatchObject({ hasUnreadMessages: true, lastMessageSeq: 3, readSeq: 0 });
      // The sender has read their own messages (and opened the match by sending).
      expect(await getMatch(a, matchId)).toMatchObject({ hasUnreadMessages: false, readSeq: 3, otherReadSeq: 0 });

      const read = await server.call('POST', `/api/matches/${matchId}/read`, { token: b.token, body: { seq: 99 } });
      expect(read.status, read.text).toBe(200);
      expect(read.json).toMatchObject({ readSeq: 3, otherReadSeq: 3, hasUnreadMessages: false, lastMessageSeq: 3 });
      const receipt = { matchId, userId: b.id, seq: 3 };
      await aLog.until((l) => l.of('message:read').length === 1, 'the receipt at a');
      await bLog.until((l) => l.of('message:read').length === 1, 'the receipt at b (other tabs)');
      expect(aLog.of('message:read')).toEqual([receipt]);
      expect(bLog.of('message:read')).toEqual([receipt]);
      await bLog.until(
        (l) => l.of<Pick<BadgeCounts, 'unreadMatches'>>('badges:unread').at(-1)?.unreadMatches.romantic === 0,
        "b's badge cleared",
      );
      expect((await getMatch(a, matchId)).otherReadSeq).toBe(3);

      // Backwards, or again: nothing moves and nothing is announced.
      const back = await emitRaw(bSocket, 'message:read', { matchId, seq: 1 });
      expect(back).toEqual({ ok: true, data: null });
      await drain(aSocket, a);
      expect(aLog.of('message:read')).toHaveLength(1);
      expect((await getMatch(b, matchId)).readSeq).toBe(3);

      // Over the socket.
      await sendRest(server, a, matchId, 'four');
      expect(await emitRaw(bSocket, 'message:read', { matchId, seq: 4 })).toEqual({ ok: true, data: null });
      await aLog.until((l) => l.of('message:read').length === 2, 'the socket receipt at a');
      expect(aLog.of('message:read').at(-1)).toEqual({ matchId, userId: b.id, seq: 4 });
    });
  });

  describe('idempotent sends', () => {
    it('duplicated and re-sent sends (REST and socket, at once, acks lost) store each message once, 1..N, one event per tab', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const [a1, a2, b1] = [await server.socket(a.token), await server.socket(a.token), await server.socket(b.token)];
      const logs = [
        new EventLog(a1, ['message:new']),
        new EventLog(a2, ['message:new']),
        new EventLog(b1, ['message:new']),
      ];
      const N = 20;
      const ids = Array.from({ length: N }, () => randomUUID());
      const acked = new Map<string, Message[]>();
      const keep = (clientId: string, message: Message) =>
        acked.set(clientId, [...(acked.get(clientId) ?? []), message]);

      await mapLimit(ids, 5, async (clientId, i) => {
        const content = `message ${i}`;
        // Lost acknowledgement: a send whose ack the client never reads, then its re-sends.
        a2.emit('message:send', { matchId, content, clientId }, () => {});
        // The same send three more times at once, over both transports and both tabs.
        const answers = await Promise.all([
          sendSocket(a1, matchId, content, clientId),
          sendRest(server, a, matchId, content, clientId),
          sendSocket(a2, matchId, content, clientId),
        ]);
        const [viaSocket, viaRest, viaOtherTab] = answers;
        expect(viaRest.status, viaRest.text).toBe(201);
        for (const ack of [viaSocket, viaOtherTab]) {
          expect(ack.ok, JSON.stringify(ack)).toBe(true);
          if (ack.ok) keep(clientId, ack.data);
        }
        keep(clientId, viaRest.json as Message);
        // A re-send long after, as after a reconnect: the same stored message again.
        const late = await sendSocket(a1, matchId, content, clientId);
        if (late.ok) keep(clientId, late.data);
      });

      const stored = await rows(matchId);
      expect(stored).toHaveLength(N);
      expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      expect(new Set(stored.map((r) => r.client_id))).toEqual(new Set(ids));
      for (const clientId of ids) {
        const answers = acked.get(clientId) ?? [];
        expect(answers).toHaveLength(4);
        expect(new Set(answers.map((m) => m.id)).size).toBe(1);
        expect(new Set(answers.map((m) => m.seq)).size).toBe(1);
      }

      for (const [log, socket, who] of [
        [logs[0], a1, a],
        [logs[1], a2, a],
        [logs[2], b1, b],
      ] as const) {
        await log!.until((l) => l.messages(matchId).length >= N, 'every message at every tab');
        await drain(socket, who);
        const seen = log!.messages(matchId);
        expect(seen).toHaveLength(N);
        expect(new Set(seen.map((m) => m.seq)).size).toBe(N);
      }
    });
  });

  describe('catch-up', () => {
    it('a person away during 200 sends gets all of them after reconnecting: in order, none twice', async () => {
      const { a, b, matchId } = await mutualPair(server);
      let bSocket = await server.socket(b.token);
      const before = new EventLog(bSocket, ['message:new']);
      for (let i = 1; i <= 3; i++) await sendRest(server, a, matchId, `before ${i}`);
      await before.until((l) => l.messages(matchId).length === 3, 'the first three live');
      const lastSeen = before.messages(matchId).at(-1)?.seq ?? 0;
      bSocket.disconnect();

      // 200 sends while b is away, over both transports, several at a time.
      const aSocket = await server.socket(a.token);
      const answers = await mapLimit(
        Array.from({ length: 200 }, (_, i) => i),
        8,
        async (i) => {
          if (i % 2) {
            const ack = await sendSocket(aSocket, matchId, `away ${i}`);
            return ack.ok ? 201 : ack.error.status;
          }
          return (await sendRest(server, a, matchId, `away ${i}`, randomUUID())).status;
        },
      );
      expect(answers.every((s) => s === 201)).toBe(true);

      bSocket = await server.socket(b.token);
      const after = new EventLog(bSocket, ['message:new']);
      const { messages, pages } = await catchUp(server, b, matchId, lastSeen);
      expect(pages).toBe(5); // 4 full pages of 50, then an empty one
      expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 200 }, (_, i) => lastSeen + i + 1));
      expect(new Set(messages.map((m) => m.content)).size).toBe(200);
      // Live again.
      await sendRest(server, a, matchId, 'welcome back');
      await after.until((l) => l.messages(matchId).length === 1, 'a live message after the catch-up');
      expect(after.messages(matchId)[0]?.seq).toBe(204);
    });

    it('200 sends from both people at once: seq strictly increasing with no gap, and catch-up has them all', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const [aSocket, bSocket] = [await server.socket(a.token), await server.socket(b.token)];
      const work = Array.from({ length: 200 }, (_, i) => i);
      const answers = await Promise.all(
        work.map(async (i) => {
          const from = i % 2 ? a : b;
          const socket = i % 2 ? aSocket : bSocket;
          if (i % 4 < 2) {
            const res = await sendRest(server, from, matchId, `both ${i}`, randomUUID());
            return { status: res.status, message: res.json as Message };
          }
          const ack = await sendSocket(socket, matchId, `both ${i}`);
          return ack.ok ? { status: 201, message: ack.data } : { status: ack.error.status, message: undefined };
        }),
      );
      expect(answers.filter((x) => x.status !== 201)).toEqual([]);
      const seqs = answers.map((x) => x.message?.seq ?? 0);
      expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      // One tab's sends are stored in the order it sent them (its events are handled in order).
      for (const side of [0, 1]) {
        const ofTab = seqs.filter((_, i) => i % 2 === side && i % 4 >= 2);
        expect(ofTab).toEqual([...ofTab].sort((x, y) => x - y));
      }
      const { messages } = await catchUp(server, a, matchId, 0, LIMITS.messagePageMax);
      expectSeqs(messages, 200);
      expect(new Set(messages.map((m) => m.content)).size).toBe(200);
      expect(await rows(matchId)).toHaveLength(200);
    });
  });

  describe('who may read, send and hear', () => {
    it('a stranger can neither read nor send nor hear a match (REST and socket)', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const stranger = await person(server);
      const [aSocket, bSocket, sSocket] = [
        await server.socket(a.token),
        await server.socket(b.token),
        await server.socket(stranger.token),
      ];
      const sLog = new EventLog(sSocket, [...CHAT_EVENTS]);
      const bLog = new EventLog(bSocket, [...CHAT_EVENTS]);

      expect((await server.call('GET', listPath(stranger, matchId), { token: stranger.token })).status).toBe(404);
      expect((await server.call('GET', listPath(a, matchId), { token: stranger.token })).status).toBe(403);
      expect((await sendRest(server, stranger, matchId, 'let me in')).status).toBe(404);
      const read = await server.call('POST', `/api/matches/${matchId}/read`, {
        token: stranger.token,
        body: { seq: 1 },
      });
      expect(read.status).toBe(404);
      const socketSend = await sendSocket(sSocket, matchId, 'let me in');
      expect(socketSend).toEqual({
        ok: false,
        error: { status: 404, code: 'not_found', message: 'Match not found.' },
      });
      expect((await emitRaw(sSocket, 'message:read', { matchId, seq: 1 })).ok).toBe(false);
      expect(await emitRaw(sSocket, 'presence:get', { matchId })).toMatchObject({ ok: false, error: { status: 404 } });
      expect(await emitRaw(sSocket, 'typing', { matchId, typing: true })).toMatchObject({
        ok: false,
        error: { status: 404 },
      });
      await drain(bSocket, b);
      expect(bLog.of('typing')).toEqual([]);

      // The two people talk, type and read; the stranger hears none of it.
      await sendRest(server, a, matchId, 'private');
      await sendSocket(aSocket, matchId, 'also private');
      aSocket.emit('typing', { matchId, typing: true });
      await bLog.until((l) => l.of('typing').length === 1 && l.messages().length === 2, 'b hears a');
      await emitRaw(bSocket, 'message:read', { matchId, seq: 2 });
      await drain(sSocket, stranger);
      expect(sLog.events.filter((e) => !e.event.startsWith('badges:'))).toEqual([]);
      expect(await rows(matchId)).toHaveLength(2);
    });

    for (const ending of ['unmatch', 'block'] as const) {
      it(`after ${ending === 'unmatch' ? 'an unmatch' : 'a block'}, neither person can read or send, and nothing more is heard`, async () => {
        const { a, b, matchId } = await mutualPair(server);
        const [aSocket, bSocket] = [await server.socket(a.token), await server.socket(b.token)];
        await sendRest(server, a, matchId, 'before the end');
        // Everything of before the end has arrived; from here on, logs start empty.
        await drain(aSocket, a);
        await drain(bSocket, b);
        const aLog = new EventLog(aSocket, [...CHAT_EVENTS]);
        const bLog = new EventLog(bSocket, [...CHAT_EVENTS]);
        const res =
          ending === 'unmatch'
            ? await server.call('DELETE', `/api/matches/${matchId}`, { token: b.token })
            : await server.call('POST', '/api/blocks', { token: b.token, body: { userId: a.id } });
        expect(res.status, res.text).toBe(200);
        await aLog.until((l) => l.of('match:removed').length === 1, 'match:removed at a');

        for (const p of [a, b]) {
          expect((await sendRest(server, p, matchId, 'still there?')).status).toBe(404);
          expect((await server.call('GET', listPath(p, matchId), { token: p.token })).status).toBe(404);
          const readAnswer = await server.call('POST', `/api/matches/${matchId}/read`, {
            token: p.token,
            body: { seq: 1 },
          });
          expect(readAnswer.status).toBe(404);
        }
        for (const socket of [aSocket, bSocket]) {
          expect(await sendSocket(socket, matchId, 'still there?')).toMatchObject({
            ok: false,
            error: { status: 404 },
          });
          expect(await emitRaw(socket, 'presence:get', { matchId })).toMatchObject({
            ok: false,
            error: { status: 404 },
          });
          expect(await emitRaw(socket, 'typing', { matchId, typing: true })).toMatchObject({ ok: false });
          expect(await emitRaw(socket, 'message:read', { matchId, seq: 1 })).toMatchObject({ ok: false });
        }
        await drain(aSocket, a);
        await drain(bSocket, b);
        for (const log of [aLog, bLog]) {
          expect(
            log.events.filter(
              (e) => !['badges:update', 'badges:unread', 'match:removed', 'presence'].includes(e.event),
            ),
          ).toEqual([]);
        }
        expect(await rows(matchId)).toHaveLength(1);
      });
    }

    it('a block racing sends: every send is either stored before it or refused, never after (15 rounds)', async () => {
      for (let round = 0; round < 15; round++) {
        const { a, b, matchId } = await mutualPair(server);
        const sends = Array.from({ length: 4 }, (_, i) => sendRest(server, a, matchId, `race ${i}`, randomUUID()));
        const blocked = server.call('POST', '/api/blocks', { token: b.token, body: { userId: a.id } });
        const answers = await Promise.all(sends);
        expect((await blocked).status).toBe(200);
        const stored = await rows(matchId);
        const ok = answers.filter((r) => r.status === 201);
        expect(answers.every((r) => r.status === 201 || r.status === 404)).toBe(true);
        expect(stored.map((r) => r.content).sort()).toEqual(ok.map((r) => r.json.content).sort());
        expectSeqs(stored as unknown as Message[], stored.length);
        // Stored before the block took the match rows: each message's time (taken at its insert,
        // under the row lock) is before the block's (taken at its insert, after it locked the rows).
        const [late] = await sql<{ n: number }>(
          em.fork(),
          `select count(*)::int as n from messages m join blocks bl on bl.blocker_id = ? and bl.blocked_id = ?
            where m.match_id = ? and m.created_at >= bl.created_at`,
          [b.id, a.id, matchId],
        );
        expect(late?.n).toBe(0);
        // Once the block has answered, nothing gets in.
        expect((await sendRest(server, a, matchId, 'after')).status).toBe(404);
      }
    });

    it('a socket whose login was revoked does not act', async () => {
      const { a, matchId } = await mutualPair(server);
      const socket = await server.socket(a.token);
      // Revoked in the database without the disconnect that logout sends (as if it were lost).
      await sql(em.fork(), 'update sessions set revoked_at = now() where user_id = ?', [a.id]);
      const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      expect(await sendSocket(socket, matchId, 'from a dead login')).toMatchObject({
        ok: false,
        error: { status: 401 },
      });
      expect(await disconnected).toBe('io server disconnect');
      expect(await rows(matchId)).toHaveLength(0);
    });
  });

  describe('socket events', () => {
    it('refuses malformed payloads with a 400 ack and keeps the socket working', async () => {
      const { a, matchId } = await mutualPair(server);
      const socket = await server.socket(a.token);
      const bad: [string, unknown][] = [
        ['message:send', { matchId, content: '   ', clientId: randomUUID() }],
        ['message:send', { matchId, content: 'x'.repeat(LIMITS.messageMaxLength + 1), clientId: randomUUID() }],
        ['message:send', { matchId, content: 'hi', clientId: 'nope' }],
        ['message:send', { matchId, content: 'hi' }],
        ['message:send', { matchId: 'one', content: 'hi', clientId: randomUUID() }],
        ['message:send', { matchId, content: 'hi', clientId: randomUUID(), senderId: 1 }],
        ['message:send', 'hello'],
        ['message:send', null],
        ['message:read', { matchId, seq: -1 }],
        ['typing', { matchId }],
        ['presence:get', {}],
      ];
      for (const [event, payload] of bad) {
        const ack = await emitRaw(socket, event, payload);
        expect(ack, `${event} ${JSON.stringify(payload)?.slice(0, 80)}`).toMatchObject({
          ok: false,
          error: { status: 400, code: 'bad_request' },
        });
      }
      expect(await rows(matchId)).toHaveLength(0);
      expect((await sendSocket(socket, matchId, 'fine')).ok).toBe(true);
    });

    it('typing reaches only the other person, and a flood is throttled', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const [a1, a2, b1] = [await server.socket(a.token), await server.socket(a.token), await server.socket(b.token)];
      const a2Log = new EventLog(a2, ['typing']);
      const bLog = new EventLog(b1, ['typing']);
      a1.emit('typing', { matchId, typing: true });
      a1.emit('typing', { matchId, typing: false });
      await bLog.until((l) => l.of('typing').length === 2, 'both typing signals at b');
      expect(bLog.of('typing')).toEqual([
        { matchId, userId: a.id, typing: true },
        { matchId, userId: a.id, typing: false },
      ]);
      // A flood: far more signals than the throttle lets through; all acknowledged, few forwarded.
      const acks = await Promise.all(
        Array.from({ length: 100 }, () => emitRaw(a1, 'typing', { matchId, typing: true })),
      );
      expect(acks.every((x) => x.ok)).toBe(true);
      await drain(b1, b);
      await drain(a2, a);
      // At most two windows' worth, even if a throttle window ended during the flood.
      expect(bLog.of('typing').length).toBeLessThanOrEqual(20);
      expect(a2Log.of('typing')).toEqual([]);
    });

    it('presence: the other person comes online and goes offline, and presence:get says so', async () => {
      const { a, b, matchId } = await mutualPair(server);
      const aSocket = await server.socket(a.token);
      const aLog = new EventLog(aSocket, ['presence']);
      expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: false } });
      const b1 = await server.socket(b.token);
      await aLog.until((l) => l.of('presence').length === 1, 'b online at a');
      expect(aLog.of('presence')).toEqual([{ userId: b.id, online: true }]);
      expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: true } });
      // A second tab is not news; closing one of two tabs is not offline.
      const b2 = await server.socket(b.token);
      expect(await emitRaw(b2, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: true } });
      b2.disconnect();
      expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: true } });
      b1.disconnect();
      await aLog.until((l) => l.of('presence').length === 2, 'b offline at a');
      expect(aLog.of('presence')).toEqual([
        { userId: b.id, online: true },
        { userId: b.id, online: false },
      ]);
      expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: false } });
    });
  });

  describe('under load', () => {
    it('many pairs sending at once, far above the pool size: every send answered, none 5xx', async () => {
      const PAIRS = 30;
      const PER_PERSON = 6;
      const pairs = await mapLimit(Array.from({ length: PAIRS }), 6, () => mutualPair(server));
      const sockets = await Promise.all(
        pairs.map(async ({ a, b }) => [await server.socket(a.token), await server.socket(b.token)] as const),
      );
      const statuses = await Promise.all(
        pairs.flatMap(({ a, b, matchId }, i) =>
          Array.from({ length: PER_PERSON }, async (_, k) => {
            const [aSocket, bSocket] = sockets[i]!;
            if (k % 2) {
              const ack = await sendSocket(k % 4 === 1 ? aSocket : bSocket, matchId, `load ${k}`);
              return ack.ok ? 201 : ack.error.status;
            }
            const from = k % 4 === 0 ? a : b;
            return (await sendRest(server, from, matchId, `load ${k}`, randomUUID())).status;
          }),
        ),
      );
      const counts = new Map<number, number>();
      for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
      expect(Object.fromEntries(counts)).toEqual({ 201: PAIRS * PER_PERSON });
      for (const { matchId } of pairs) expectSeqs((await rows(matchId)) as unknown as Message[], PER_PERSON);
    });
  });
});
