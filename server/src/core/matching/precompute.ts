// Keeps feed_candidates fresh: for one user after their library changes (the `matches.recompute`
// job, or on demand when the feed finds no run yet), or for everyone at once (periodic refresh of
// rarity weights, benchmark). Scores come from match-score.ts; see docs/matching.md.
import { DeadlockException, type EntityManager } from '@mikro-orm/postgresql';
import { INTENTS, type Intent } from '@shared/index';
import { intArray, type Row, sql } from '../db/sql';
import {
  ALL_INTENTS_MASK,
  CANDIDATE_SETTINGS,
  chooseStored,
  intentBit,
  podcastsForPostings,
  type RankedCandidate,
  rankExactly,
  TopN,
} from './candidates';
import { calibrate, sharedPodcasts } from './match-score';
import { idf, type LibraryEntry, listeningWeight, type Rarity, type TasteVector, tasteVector } from './taste-vector';

type Sql = <T extends object = Row>(text: string, params?: unknown[]) => Promise<T[]>;

/** Statements on this EntityManager's connection (inside a transaction: the transaction's own). */
const sqlOf =
  (em: EntityManager): Sql =>
  <T extends object = Row>(text: string, params: unknown[] = []) =>
    sql<T>(em, text, params);

interface CategoryColumns {
  category: string | null;
  categories: string[] | null;
}
interface IdCount {
  id: number;
  n: number;
}
interface PostingRow {
  user_id: number;
  podcast_id: number;
  times_listened: number;
  episode_count: number | null;
}
interface UserIntent {
  user_id: number;
  intent: Intent;
}

const categoriesOf = (row: CategoryColumns): string[] => {
  const list = row.categories ?? [];
  return list.length > 0 ? list : row.category ? [row.category] : [];
};

// ------------------------------------------------------------------ rarity (listener counts)

let rarityCache: { at: number; rarity: Rarity } | undefined;
/** How long listener counts are reused by single-user recomputes; the full recompute always refreshes. */
export const RARITY_TTL_MS = 5 * 60_000;

async function loadRarity(sql: Sql): Promise<Rarity> {
  const rows = await sql<IdCount>(
    'select podcast_id as id, count(*)::int as n from user_podcasts where not hidden group by podcast_id',
  );
  const [usersRow] = await sql<{ n: number }>(
    'select count(distinct user_id)::int as n from user_podcasts where not hidden',
  );
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.id, row.n);
  const users = usersRow?.n ?? 0;
  return { users, listeners: (id) => counts.get(id) ?? 0 };
}

async function cachedRarity(sql: Sql): Promise<Rarity> {
  if (!rarityCache || Date.now() - rarityCache.at > RARITY_TTL_MS) {
    rarityCache = { at: Date.now(), rarity: await loadRarity(sql) };
  }
  return rarityCache.rarity;
}

/** Forget cached listener counts (tests, or after a bulk import). */
export function resetRarityCache(): void {
  rarityCache = undefined;
}

// ------------------------------------------------------------------ writing rows

interface OutRow {
  userId: number;
  candidateId: number;
  score: number;
  raw: number;
  shared: number[];
}

function outRow(userId: number, me: TasteVector, candidateId: number, other: TasteVector, raw: number): OutRow {
  const shared = sharedPodcasts(me, other)
    .slice(0, CANDIDATE_SETTINGS.sharedKept)
    .map((s) => s.podcastId);
  return { userId, candidateId, score: calibrate(raw), raw, shared };
}

/** Upserts rows: a row another recompute wrote meanwhile is replaced, never a duplicate-key error. */
const UPSERT_ROWS = `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids)
  select u, c, s, r, sh::int[] from unnest(?::int[], ?::int[], ?::int[], ?::float8[], ?::text[]) as t(u, c, s, r, sh)
  on conflict (user_id, candidate_id) do update
    set score = excluded.score, raw = excluded.raw, shared_podcast_ids = excluded.shared_podcast_ids`;

/** Advisory-lock namespaces (two-int keys): computing one user's list, and writing rows of a user's list. */
const COMPUTE_LOCK = 0x6d617463; // 'matc'
const WRITE_LOCK = 0x66656564; // 'feed'

/**
 * Takes the write locks of these users' lists, in ascending id order, so recomputes that write into
 * each other's lists (mirror rows) queue instead of deadlocking. Every writer of feed_candidates
 * rows of one user (user_id) holds that user's write lock, except the full recompute, which is
 * alone in a worker job and retried.
 */
async function lockListsForWriting(sql: Sql, userIds: Iterable<number>): Promise<void> {
  const ids = [...new Set(userIds)].sort((a, b) => a - b);
  await sql('select count(pg_advisory_xact_lock(?::int, id)) from unnest(?::int[]) with ordinality as t(id, n)', [
    WRITE_LOCK,
    intArray(ids),
  ]);
}

/** Runs a transaction again when the database aborted it to break a deadlock (at most 3 tries). */
async function retryOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof DeadlockException) || attempt >= 3) throw error;
    }
  }
}

function rowParams(rows: readonly OutRow[]): unknown[] {
  return [
    intArray(rows.map((r) => r.userId)),
    intArray(rows.map((r) => r.candidateId)),
    intArray(rows.map((r) => r.score)),
    `{${rows.map((r) => r.raw.toPrecision(17)).join(',')}}`,
    `{${rows.map((r) => `"${intArray(r.shared)}"`).join(',')}}`,
  ];
}

// ------------------------------------------------------------------ one user

async function loadLibraries(sql: Sql, userIds: number[]): Promise<Map<number, LibraryEntry[]>> {
  const libraries = new Map<number, LibraryEntry[]>();
  if (userIds.length === 0) return libraries;
  const rows = await sql<PostingRow & CategoryColumns>(
    `select up.user_id, up.podcast_id, up.times_listened, up.episode_count, p.category, p.categories
       from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = any(?::int[]) and not up.hidden`,
    [intArray(userIds)],
  );
  for (const row of rows) {
    const userId = row.user_id;
    let list = libraries.get(userId);
    if (!list) {
      list = [];
      libraries.set(userId, list);
    }
    list.push({
      podcastId: row.podcast_id,
      timesListened: row.times_listened,
      episodeCount: row.episode_count,
      hidden: false,
      categories: categoriesOf(row),
    });
  }
  return libraries;
}

async function activeMasks(sql: Sql, userIds: number[]): Promise<Map<number, number>> {
  const masks = new Map<number, number>();
  if (userIds.length === 0) return masks;
  const rows = await sql<UserIntent>(
    'select user_id, intent from user_profiles where active and user_id = any(?::int[])',
    [intArray(userIds)],
  );
  for (const row of rows) masks.set(row.user_id, (masks.get(row.user_id) ?? 0) | intentBit(row.intent));
  return masks;
}

/** People this user may never see (blocked either way) and, per person, the intents they acted in. */
async function exclusionsFor(sql: Sql, userId: number) {
  const blocked = new Set<number>();
  for (const row of await sql<{ other: number }>(
    'select blocked_id as other from blocks where blocker_id = ? union select blocker_id from blocks where blocked_id = ?',
    [userId, userId],
  )) {
    blocked.add(row.other);
  }
  const acted = new Map<number, number>();
  for (const row of await sql<{ other: number; intent: Intent }>(
    `select case when user1_id = ? then user2_id else user1_id end as other, intent from matches
      where (user1_id = ? and user1_acted) or (user2_id = ? and user2_acted)`,
    [userId, userId, userId],
  )) {
    acted.set(row.other, (acted.get(row.other) ?? 0) | intentBit(row.intent));
  }
  return { blocked, acted };
}

export interface RecomputeResult {
  users: number;
  rows: number;
}

/**
 * Recomputes one user's candidates, and keeps the mirror rows symmetric: people now stored for
 * this user get this user in their list with the same score, and people who already listed this
 * user get the new score. Runs in one transaction.
 */
export async function recomputeUser(em: EntityManager, userId: number): Promise<RecomputeResult> {
  return retryOnDeadlock(() => recomputeUserOnce(em, userId));
}

async function recomputeUserOnce(em: EntityManager, userId: number): Promise<RecomputeResult> {
  return em.transactional(async (tx) => {
    const sql = sqlOf(tx);
    // One recompute per user at a time; a concurrent one waits and then redoes the work.
    await sql('select pg_advisory_xact_lock(?::int, ?::int)', [COMPUTE_LOCK, userId]);
    const rarity = await cachedRarity(sql);
    const mine = (await loadLibraries(sql, [userId])).get(userId) ?? [];
    const me = tasteVector(mine, rarity);
    const { blocked, acted } = await exclusionsFor(sql, userId);

    // Candidates: people sharing the user's rarer shows, by partial dot product over those shows.
    const top = new TopN(CANDIDATE_SETTINGS.scored);
    if (me.ids.length > 0) {
      const chosen = podcastsForPostings(me, rarity.listeners);
      const myWeight = new Map<number, number>();
      for (let k = 0; k < me.ids.length; k++) myWeight.set(me.ids[k] as number, me.weights[k] as number);
      const postings = await sql<PostingRow>(
        `select user_id, podcast_id, times_listened, episode_count from user_podcasts
          where podcast_id = any(?::int[]) and not hidden and user_id <> ?`,
        [intArray(chosen), userId],
      );
      const partial = new Map<number, number>();
      for (const row of postings) {
        const podcastId = row.podcast_id;
        const other = row.user_id;
        if (blocked.has(other)) continue;
        const w =
          listeningWeight(row.times_listened, row.episode_count) * idf(rarity.listeners(podcastId), rarity.users);
        partial.set(other, (partial.get(other) ?? 0) + (myWeight.get(podcastId) as number) * w);
      }
      for (const [other, score] of partial) if ((acted.get(other) ?? 0) !== ALL_INTENTS_MASK) top.push(score, other);
    }
    const holders = (
      await sql<{ user_id: number }>('select user_id from feed_candidates where candidate_id = ?', [userId])
    ).map((r) => r.user_id);
    const pool = [...new Set([...top.sorted().map((t) => t.key), ...holders])];
    const libraries = await loadLibraries(sql, pool);
    const vectors = new Map<number, TasteVector>();
    for (const [id, entries] of libraries) vectors.set(id, tasteVector(entries, rarity));
    const ranked = rankExactly(me, pool, (id) => vectors.get(id));
    const masks = await activeMasks(sql, pool);
    const stored = chooseStored(
      ranked.filter((c) => !blocked.has(c.userId)),
      (id) => masks.get(id) ?? 0,
      (id) => acted.get(id) ?? 0,
    );

    const forward = stored.map((c) => outRow(userId, me, c.userId, vectors.get(c.userId) as TasteVector, c.raw));
    const rawOf = new Map(ranked.map((c) => [c.userId, c.raw]));
    const storedIds = new Set(stored.map((c) => c.userId));
    // Mirror rows: everyone stored here, plus everyone who already listed this user.
    const mirrorIds = new Set([...storedIds, ...holders]);
    const mirror: OutRow[] = [];
    const dropMirror: number[] = [];
    for (const other of mirrorIds) {
      const raw = rawOf.get(other) ?? 0;
      if (raw > 0 && !blocked.has(other)) {
        mirror.push(outRow(other, vectors.get(other) as TasteVector, userId, me, raw));
      } else dropMirror.push(other);
    }

    // This user's list and every list that gains, keeps or loses this user.
    await lockListsForWriting(sql, [userId, ...mirrorIds]);
    await sql('delete from feed_candidates where user_id = ?', [userId]);
    if (forward.length > 0) await sql(UPSERT_ROWS, rowParams(forward));
    if (dropMirror.length > 0) {
      await sql('delete from feed_candidates where candidate_id = ? and user_id = any(?::int[])', [
        userId,
        intArray(dropMirror),
      ]);
    }
    if (mirror.length > 0) await sql(UPSERT_ROWS, rowParams(mirror));
    await sql(
      `insert into feed_candidate_runs (user_id, computed_at) values (?, now())
         on conflict (user_id) do update set computed_at = excluded.computed_at`,
      [userId],
    );
    return { users: 1, rows: forward.length + mirror.length };
  });
}

// ------------------------------------------------------------------ everyone

/**
 * Recomputes every user's candidates in memory (one pass over all libraries) and replaces the
 * table. Used by the periodic `matches.recompute {scope:'all'}` job and the benchmark.
 */
export async function recomputeAll(
  em: EntityManager,
  log: (line: string) => void = () => {},
): Promise<RecomputeResult> {
  const sql = sqlOf(em);
  const started = Date.now();
  const libraryRows = await sql<{ user_id: number; ids: number[]; plays: number[]; episodes: number[] }>(
    `select user_id, array_agg(podcast_id order by podcast_id) as ids,
            array_agg(times_listened order by podcast_id) as plays,
            array_agg(coalesce(episode_count, 0) order by podcast_id) as episodes
       from user_podcasts where not hidden group by user_id order by user_id`,
  );
  const podcastRows = await sql<{ id: number } & CategoryColumns>(
    'select id, category, categories from podcasts where id in (select distinct podcast_id from user_podcasts)',
  );
  const categories = new Map<number, string[]>();
  for (const row of podcastRows) categories.set(row.id, categoriesOf(row));
  log(`loaded ${libraryRows.length} libraries in ${Date.now() - started} ms`);

  const counts = new Map<number, number>();
  for (const row of libraryRows) for (const id of row.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const rarity: Rarity = { users: libraryRows.length, listeners: (id) => counts.get(id) ?? 0 };

  const n = libraryRows.length;
  const userIds = new Int32Array(n);
  const vectors: TasteVector[] = new Array(n);
  const indexOf = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const { user_id: userId, ids, plays, episodes } = libraryRows[i] as (typeof libraryRows)[number];
    userIds[i] = userId;
    indexOf.set(userId, i);
    vectors[i] = tasteVector(
      ids.map((podcastId, k) => ({
        podcastId,
        timesListened: plays[k] as number,
        episodeCount: episodes[k] as number,
        hidden: false,
        categories: categories.get(podcastId) ?? [],
      })),
      rarity,
    );
  }

  // Postings: for each podcast, the users listing it and their weight for it (flat arrays).
  const podcastIndex = new Map<number, number>();
  for (const id of counts.keys()) podcastIndex.set(id, podcastIndex.size);
  const start = new Int32Array(podcastIndex.size + 1);
  for (const [id, c] of counts) start[(podcastIndex.get(id) as number) + 1] = c;
  for (let p = 0; p < podcastIndex.size; p++) start[p + 1] = (start[p + 1] as number) + (start[p] as number);
  const fill = start.slice(0, podcastIndex.size);
  const postingUser = new Int32Array(start[podcastIndex.size] as number);
  const postingWeight = new Float64Array(postingUser.length);
  for (let u = 0; u < n; u++) {
    const v = vectors[u] as TasteVector;
    for (let k = 0; k < v.ids.length; k++) {
      const p = podcastIndex.get(v.ids[k] as number) as number;
      const at = fill[p] as number;
      postingUser[at] = u;
      postingWeight[at] = v.weights[k] as number;
      fill[p] = at + 1;
    }
  }

  const activeRows = await sql<UserIntent>('select user_id, intent from user_profiles where active');
  const active = new Uint8Array(n);
  for (const row of activeRows) {
    const i = indexOf.get(row.user_id);
    if (i !== undefined) active[i] = (active[i] as number) | intentBit(row.intent);
  }
  const blockedPairs = new Set<string>();
  for (const row of await sql<{ blocker_id: number; blocked_id: number }>(
    'select blocker_id, blocked_id from blocks',
  )) {
    blockedPairs.add(`${row.blocker_id}:${row.blocked_id}`);
    blockedPairs.add(`${row.blocked_id}:${row.blocker_id}`);
  }
  const acted = new Map<string, number>();
  for (const row of await sql<{
    user1_id: number;
    user2_id: number;
    intent: Intent;
    user1_acted: boolean;
    user2_acted: boolean;
  }>('select user1_id, user2_id, intent, user1_acted, user2_acted from matches where user1_acted or user2_acted')) {
    const bit = intentBit(row.intent);
    if (row.user1_acted) {
      const key = `${row.user1_id}:${row.user2_id}`;
      acted.set(key, (acted.get(key) ?? 0) | bit);
    }
    if (row.user2_acted) {
      const key = `${row.user2_id}:${row.user1_id}`;
      acted.set(key, (acted.get(key) ?? 0) | bit);
    }
  }
  const hasExclusions = blockedPairs.size > 0 || acted.size > 0;
  log(`built ${n} vectors and ${postingUser.length} postings in ${Date.now() - started} ms`);

  const acc = new Float64Array(n);
  const touched = new Int32Array(n);
  const batch: OutRow[] = [];
  let batchUsers: number[] = [];
  let rows = 0;
  const flush = async () => {
    // Replaces the rows of the users in this batch: readers never see a user with an empty list.
    await em.transactional(async (tx) => {
      await sqlOf(tx)('set local synchronous_commit = off');
      await sqlOf(tx)('delete from feed_candidates where user_id = any(?::int[])', [intArray(batchUsers)]);
      if (batch.length > 0) await sqlOf(tx)(UPSERT_ROWS, rowParams(batch));
    });
    batchUsers = [];
    rows += batch.length;
    batch.length = 0;
  };
  const listeners = rarity.listeners;
  for (let u = 0; u < n; u++) {
    const me = vectors[u] as TasteVector;
    const uid = userIds[u] as number;
    const myWeight = new Map<number, number>();
    for (let k = 0; k < me.ids.length; k++) myWeight.set(me.ids[k] as number, me.weights[k] as number);
    let touchedCount = 0;
    for (const podcastId of podcastsForPostings(me, listeners)) {
      const p = podcastIndex.get(podcastId) as number;
      const w = myWeight.get(podcastId) as number;
      for (let at = start[p] as number, end = start[p + 1] as number; at < end; at++) {
        const v = postingUser[at] as number;
        if (v === u) continue;
        if (acc[v] === 0) touched[touchedCount++] = v;
        acc[v] = (acc[v] as number) + w * (postingWeight[at] as number);
      }
    }
    const top = new TopN(CANDIDATE_SETTINGS.scored);
    for (let t = 0; t < touchedCount; t++) {
      const v = touched[t] as number;
      const score = acc[v] as number;
      acc[v] = 0;
      if (hasExclusions) {
        const vid = userIds[v] as number;
        if (blockedPairs.has(`${uid}:${vid}`) || (acted.get(`${uid}:${vid}`) ?? 0) === ALL_INTENTS_MASK) continue;
      }
      top.push(score, v);
    }
    const ranked: RankedCandidate[] = rankExactly(
      me,
      top.sorted().map((t) => t.key),
      (v) => vectors[v],
    );
    const stored = chooseStored(
      ranked,
      (v) => active[v] as number,
      (v) => (hasExclusions ? (acted.get(`${uid}:${userIds[v]}`) ?? 0) : 0),
    );
    batchUsers.push(uid);
    for (const c of stored)
      batch.push(outRow(uid, me, userIds[c.userId] as number, vectors[c.userId] as TasteVector, c.raw));
    if (batch.length >= 20_000 || batchUsers.length >= 5000) await flush();
    if ((u + 1) % 20_000 === 0) log(`scored ${u + 1}/${n} users (${Date.now() - started} ms)`);
  }
  await flush();
  await sql(`delete from feed_candidates fc
    where not exists (select 1 from user_podcasts up where up.user_id = fc.user_id and not up.hidden)`);
  await sql(`delete from feed_candidate_runs`);
  await sql(`insert into feed_candidate_runs (user_id, computed_at) select id, now() from users`);
  const [total] = await sql<{ n: number }>('select count(*)::int as n from feed_candidates');
  rarityCache = { at: Date.now(), rarity };
  log(`stored ${total?.n} rows in ${Date.now() - started} ms`);
  return { users: n, rows: total?.n ?? rows };
}

export const FEED_INTENTS: readonly Intent[] = INTENTS;
