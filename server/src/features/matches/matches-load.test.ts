// Likes under load (issue 7): far more requests in flight than the pool has connections (10,
// core/db/orm-config.ts). The server must answer every one of them (never a 5xx) and still keep
// one row and one `match:new` per pair (docs/matches.md). No timing thresholds here: timings
// belong in `npm run bench:api` (docs/performance.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENTS, type Intent, type MatchView } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapLimit } from '../../../../scripts/lib/map-limit';
import { mulberry32 } from '../../core/db/seeders/demo-library';
import { shareAShow } from '../../test/feed-fixture';
import { drainEvents, startTestServer, type TestServer, type TestSocket, uniqueName } from '../../test/harness';

type Person = { token: string; id: number };
type Answer = Awaited<ReturnType<TestServer['call']>>;

const PAIRS = 60;
const BURST = 300;
/**
 * A correct server needs a few seconds for each test. These bounds only decide when a stuck server
 * is reported, with what it answered so far: the wait for a burst is above Knex's 60 s acquire
 * timeout, so a pool deadlock shows up as the 500 answers it produces, not as a bare test timeout.
 */
const BURST_WAIT_MS = 100_000;
const CEILING_MS = 150_000;
/** How long to wait for events that must arrive (a bound on a wait, not a timing assertion). */
const EVENT_WAIT_MS = 30_000;

/** "120 x 200" style summary of statuses, plus the first body of each non-200 status. */
function statusSummary(answers: Answer[]): string {
  const counts = new Map<number, number>();
  const sample = new Map<number, string>();
  for (const a of answers) {
    counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
    if (a.status !== 200 && !sample.has(a.status)) sample.set(a.status, a.text.slice(0, 200));
  }
  const parts = [...counts].sort(([x], [y]) => x - y).map(([status, n]) => `${n} x ${status}`);
  const bodies = [...sample].map(([status, body]) => `${status}: ${body}`);
  return [parts.join(', '), ...bodies].join('\n');
}

/**
 * Waits for all of `work` to settle; if they have not within `ms`, fails with what `summary` makes
 * of those that did, instead of leaving the test to time out without a word.
 */
async function settleWithin<T>(
  work: Promise<T>[],
  label: string,
  summary: (settled: PromiseSettledResult<T>[]) => string,
  ms = BURST_WAIT_MS,
): Promise<PromiseSettledResult<T>[]> {
  const settled: PromiseSettledResult<T>[] = [];
  const tracked = work.map((p) =>
    p.then(
      (value) => {
        const r: PromiseSettledResult<T> = { status: 'fulfilled', value };
        settled.push(r);
        return r;
      },
      (reason: unknown) => {
        const r: PromiseSettledResult<T> = { status: 'rejected', reason };
        settled.push(r);
        return r;
      },
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const done = settled.length ? summary(settled) : 'none';
      reject(new Error(`${label}: ${work.length - settled.length} of ${work.length} still pending; settled: ${done}`));
    }, ms);
  });
  try {
    return await Promise.race([Promise.all(tracked), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const failures = (settled: PromiseSettledResult<unknown>[]) =>
  settled.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error)?.message ?? o.reason)] : []));

/** Every HTTP call answered (whatever the status), or a failure saying what was answered in time. */
async function allAnswered(calls: Promise<Answer>[], label: string): Promise<Answer[]> {
  const settled = await settleWithin(calls, label, (done) =>
    statusSummary(done.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))),
  );
  const thrown = failures(settled);
  if (thrown.length) throw new Error(`${label}: ${thrown.length} calls failed: ${thrown.slice(0, 3).join('; ')}`);
  return settled.map((o) => (o as PromiseFulfilledResult<Answer>).value);
}

/** Counts `match:new` per socket; `whenAll` resolves once every socket has at least `expected`. */
class MatchNewCounter {
  readonly seen = new Map<number, MatchView[]>();
  private waiters: (() => void)[] = [];

  constructor(private readonly expected: Map<number, number>) {}

  listen(userId: number, socket: TestSocket): void {
    this.seen.set(userId, []);
    socket.on('match:new', (match) => {
      this.seen.get(userId)?.push(match);
      if (this.done()) for (const w of this.waiters.splice(0)) w();
    });
  }

  private missing(): string[] {
    const out: string[] = [];
    for (const [userId, n] of this.expected) {
      const got = this.seen.get(userId)?.length ?? 0;
      if (got < n) out.push(`user ${userId}: ${got} of ${n}`);
    }
    return out;
  }

  private done(): boolean {
    return this.missing().length === 0;
  }

  whenAll(timeoutMs = EVENT_WAIT_MS): Promise<void> {
    if (this.done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const missing = this.missing();
        reject(new Error(`match:new missing for ${missing.length} users: ${missing.slice(0, 5).join('; ')}`));
      }, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

describe('matches under load', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  // Generous: closing a server that is still stuck on its pool waits for those queries to fail.
  afterAll(() => server?.close(), 120_000);

  const exec = (sql: string, params: unknown[] = []) => em.fork().getConnection().execute(sql, params, 'all');

  async function people(n: number, prefix: string): Promise<Person[]> {
    return mapLimit(Array.from({ length: n }), 8, async () => {
      const login = await server.login(uniqueName(prefix));
      return { token: login.token, id: login.user.id };
    });
  }

  const decide = (from: Person, to: number, liked: boolean, intent: Intent) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      body: { user1Id: from.id, user2Id: to, intent, user1Liked: liked },
    });

  it(
    'many pairs like each other at the same moment: all answered, one mutual match and one match:new per person',
    async () => {
      const everyone = await people(PAIRS * 2, 'load');
      const pairs = Array.from({ length: PAIRS }, (_, i) => [everyone[2 * i], everyone[2 * i + 1]] as [Person, Person]);
      // Fresh people: their lists are computed by the first badges of their sockets below.
      await shareAShow(pairs, undefined, { markComputed: false });
      const partner = new Map<number, number>();
      for (const [a, b] of pairs) {
        partner.set(a.id, b.id);
        partner.set(b.id, a.id);
      }
      const counter = new MatchNewCounter(new Map(everyone.map((p) => [p.id, 1])));
      // Everyone opens the app at once: 120 sockets, each authenticated and sent its first badges
      // (which computes a new person's feed), also far above the pool size.
      const sockets = new Map<number, TestSocket>();
      const opened = await settleWithin(
        everyone.map(async (p) => {
          const socket = await server.socket(p.token);
          sockets.set(p.id, socket);
          counter.listen(p.id, socket);
        }),
        `${everyone.length} sockets opened at once`,
        (done) =>
          `${done.length - failures(done).length} connected, ${failures(done).length} refused ${failures(done).slice(0, 3).join('; ')}`,
      );
      const refused = failures(opened);
      expect(refused, `${refused.length} of ${everyone.length} sockets could not connect`).toEqual([]);

      // Every like at once: 120 requests in flight against a pool of 10.
      const answers = await allAnswered(
        pairs.flatMap(([a, b]) => [decide(a, b.id, true, 'romantic'), decide(b, a.id, true, 'romantic')]),
        `${PAIRS * 2} simultaneous likes`,
      );
      expect(
        answers.filter((a) => a.status >= 500),
        statusSummary(answers),
      ).toHaveLength(0);
      expect(statusSummary(answers)).toBe(`${PAIRS * 2} x 200`);

      for (const [i, [a, b]] of pairs.entries()) {
        const ra = answers[2 * i] as Answer;
        const rb = answers[2 * i + 1] as Answer;
        // One row per pair; the later of the two requests certainly sees it mutual.
        expect(ra.json.id).toBe(rb.json.id);
        expect(ra.json).toMatchObject({ user1Id: a.id, user2Id: b.id, user1Liked: true });
        expect(rb.json).toMatchObject({ user1Id: b.id, user2Id: a.id, user1Liked: true });
        expect(ra.json.isMutualMatch || rb.json.isMutualMatch).toBe(true);
      }

      const ids = everyone.map((p) => p.id);
      const rows = await exec(
        `select user1_id, user2_id, count(*)::int as n, count(mutual_at)::int as mutual from matches
          where user1_id = any(?::int[]) or user2_id = any(?::int[]) group by user1_id, user2_id, intent`,
        [`{${ids.join(',')}}`, `{${ids.join(',')}}`],
      );
      expect(rows).toHaveLength(PAIRS);
      for (const row of rows) {
        expect(partner.get(row.user1_id as number)).toBe(row.user2_id);
        expect(row).toMatchObject({ n: 1, mutual: 1 });
      }

      // Each person's list holds exactly their partner.
      const lists = await mapLimit(everyone, 20, (p) =>
        server.call('GET', `/api/users/${p.id}/matches?intent=romantic`, { token: p.token }),
      );
      expect(statusSummary(lists)).toBe(`${PAIRS * 2} x 200`);
      for (const [i, p] of everyone.entries()) {
        const list = (lists[i] as Answer).json as MatchView[];
        expect(
          list.map((m) => m.matchedUser.id),
          `matches of user ${p.id}`,
        ).toEqual([partner.get(p.id)]);
      }

      // Exactly one match:new per person: wait for the expected ones, then for a sentinel event the
      // server publishes to the same room after every like was answered (drainEvents): when it
      // arrives, any duplicate would have arrived before it, so the counts read then are final.
      await counter.whenAll();
      await mapLimit(everyone, 20, (p) => drainEvents(server, sockets.get(p.id) as TestSocket, p));
      for (const p of everyone) {
        const seen = counter.seen.get(p.id) ?? [];
        expect(
          seen.map((m) => m.matchedUser.id),
          `match:new received by user ${p.id}`,
        ).toEqual([partner.get(p.id)]);
        expect(seen[0]).toMatchObject({ user1Id: p.id, intent: 'romantic', isMutualMatch: true });
      }
    },
    CEILING_MS,
  );

  it(
    "one person's burst over a few rows: 300 likes and passes at once, all answered, no duplicates",
    async () => {
      // As in the report: a person fresh from dev login (no socket yet, feed never computed, so
      // every one of their likes also asks for their badges to be computed) and five others who
      // have the app open and already liked them in every intent, so the first like of the burst
      // on each row makes it mutual.
      const [me, ...targets] = (await people(6, 'burst')) as [Person, ...Person[]];
      await shareAShow(
        targets.map((t) => [me, t]),
        undefined,
        { markComputed: false },
      );
      const before = await mapLimit(
        targets.flatMap((t) => INTENTS.map((intent) => [t, intent] as const)),
        5,
        ([t, intent]) => decide(t, me.id, true, intent),
      );
      expect(statusSummary(before)).toBe(`${targets.length * INTENTS.length} x 200`);
      const counter = new MatchNewCounter(new Map(targets.map((t) => [t.id, INTENTS.length])));
      const sockets = new Map<number, TestSocket>();
      for (const t of targets) {
        const socket = await server.socket(t.token);
        sockets.set(t.id, socket);
        counter.listen(t.id, socket);
      }

      // 20 decisions per (target, intent), the first of each a like, the rest random; shuffled.
      const random = mulberry32(7);
      const combos = targets.flatMap((t) => INTENTS.map((intent) => ({ target: t.id, intent })));
      const perCombo = BURST / combos.length;
      const decisions = combos.flatMap((c) =>
        Array.from({ length: perCombo }, (_, k) => ({ ...c, liked: k === 0 || random() < 0.5 })),
      );
      for (let i = decisions.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [decisions[i], decisions[j]] = [
          decisions[j] as (typeof decisions)[number],
          decisions[i] as (typeof decisions)[number],
        ];
      }
      expect(decisions).toHaveLength(BURST);

      const answers = await allAnswered(
        decisions.map((d) => decide(me, d.target, d.liked, d.intent)),
        `${BURST} likes and passes by one person`,
      );
      expect(
        answers.filter((a) => a.status >= 500),
        statusSummary(answers),
      ).toHaveLength(0);
      expect(statusSummary(answers)).toBe(`${BURST} x 200`);

      // One row per (target, intent): every answer about it names the same match.
      const idOf = new Map<string, Set<number>>();
      for (const [i, d] of decisions.entries()) {
        const key = `${d.target}:${d.intent}`;
        const set = idOf.get(key) ?? new Set<number>();
        set.add((answers[i] as Answer).json.id);
        idOf.set(key, set);
      }
      expect([...idOf.values()].map((s) => s.size)).toEqual(combos.map(() => 1));

      const targetIds = targets.map((t) => t.id).sort((x, y) => x - y);
      for (const intent of INTENTS) {
        const list = await server.call('GET', `/api/users/${me.id}/matches?intent=${intent}`, { token: me.token });
        expect(list.status, list.text.slice(0, 200)).toBe(200);
        const views = list.json as MatchView[];
        expect(new Set(views.map((m) => m.id)).size, `duplicate match ids in ${intent}`).toBe(views.length);
        // mutual_at is set once, by the first like after theirs, and a later pass does not clear it.
        expect(views.map((m) => m.matchedUser.id).sort((x, y) => x - y)).toEqual(targetIds);
        const feed = await server.call('GET', `/api/users/${me.id}/feed?intent=${intent}`, { token: me.token });
        expect(feed.status, feed.text.slice(0, 200)).toBe(200);
      }
      const counts = await server.call('GET', `/api/users/${me.id}/feed-counts`, { token: me.token });
      expect(counts.status, counts.text.slice(0, 200)).toBe(200);

      // One match:new per row, and no more: each target hears of each intent exactly once (the
      // request that made a row mutual tells both people, so this covers all 15 rows).
      await counter.whenAll();
      for (const t of targets) await drainEvents(server, sockets.get(t.id) as TestSocket, t);
      for (const t of targets) {
        const theirs = (counter.seen.get(t.id) ?? []).map((m) => `${m.matchedUser.id}:${m.intent}`).sort();
        expect(theirs, `match:new received by target ${t.id}`).toEqual(INTENTS.map((i) => `${me.id}:${i}`).sort());
      }
    },
    CEILING_MS,
  );

  it(
    'unmatch, block, favourite, seen, read, report and messages on 40 matches at once: no 5xx, a consistent end',
    async () => {
      // 40 mutual pairs (80 people), then ~240 writes in flight at once, over all the pairs: the
      // first person of each pair does one of unmatch / block / favourite+seen+read / report while
      // the second sends three messages into the same match.
      const everyone = await people(80, 'mixload');
      await shareAShow(
        Array.from({ length: 40 }, (_, p) => [everyone[2 * p] as Person, everyone[2 * p + 1] as Person]),
      );
      const pairs = await mapLimit(
        Array.from({ length: 40 }, (_, p) => p),
        8,
        async (p) => {
          const [a, b] = [everyone[2 * p] as Person, everyone[2 * p + 1] as Person];
          await decide(a, b.id, true, 'romantic');
          const mutual = await decide(b, a.id, true, 'romantic');
          expect(mutual.json.isMutualMatch).toBe(true);
          return { a, b, matchId: mutual.json.id as number, kind: p % 4 };
        },
      );
      const send = (from: Person, matchId: number, text: string) =>
        server.call('POST', '/api/chat', {
          token: from.token,
          body: { matchId, senderId: from.id, content: text, clientId: crypto.randomUUID() },
        });
      const calls: Promise<Answer>[] = [];
      for (const { a, b, matchId, kind } of pairs) {
        const t = { token: a.token };
        if (kind === 0) calls.push(server.call('DELETE', `/api/matches/${matchId}`, t));
        if (kind === 1) calls.push(server.call('POST', '/api/blocks', { ...t, body: { userId: b.id } }));
        if (kind === 2) {
          calls.push(server.call('PUT', `/api/matches/${matchId}`, { ...t, body: { isFavorite: true } }));
          calls.push(server.call('POST', `/api/matches/${matchId}/seen`, t));
          calls.push(server.call('POST', `/api/matches/${matchId}/read`, { ...t, body: { seq: 2 } }));
        }
        if (kind === 3)
          calls.push(server.call('POST', '/api/reports', { ...t, body: { reportedId: b.id, reason: 'spam' } }));
        for (let k = 0; k < 3; k++) calls.push(send(b, matchId, `message ${k}`));
      }
      const answers = await allAnswered(calls, 'mixed match writes');
      expect(
        answers.filter((r) => r.status >= 500),
        statusSummary(answers),
      ).toEqual([]);
      // Every answer is one the rules allow: a message racing an unmatch or block may be refused (404).
      for (const r of answers) expect([200, 201, 404], statusSummary(answers)).toContain(r.status);

      for (const { a, b, matchId, kind } of pairs) {
        const listA = (await server.call('GET', `/api/users/${a.id}/matches?intent=romantic`, { token: a.token }))
          .json as MatchView[];
        const [row] = await exec('select last_message_seq, user1_favorite, user2_favorite from matches where id = ?', [
          matchId,
        ]);
        const [msgs] = await exec('select count(*)::int as n, max(seq) as top from messages where match_id = ?', [
          matchId,
        ]);
        // No gaps, no duplicates: the seq counter and the stored messages agree.
        expect(msgs?.n).toBe(row?.last_message_seq);
        expect(msgs?.top ?? 0).toBe(row?.last_message_seq);
        if (kind === 0 || kind === 1) expect(listA.map((m) => m.id)).not.toContain(matchId);
        else {
          expect(listA.map((m) => m.id)).toEqual([matchId]);
          expect(msgs?.n).toBe(3);
        }
        if (kind === 2) expect(a.id < b.id ? row?.user1_favorite : row?.user2_favorite).toBe(true);
        if (kind === 3) {
          const [reports] = await exec('select count(*)::int as n from reports where reporter_id = ?', [a.id]);
          expect(reports?.n).toBe(1);
        }
      }
    },
    CEILING_MS,
  );
});
