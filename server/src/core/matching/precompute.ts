// Keeps feed_candidates fresh: for one user after their library changes (the `matches.recompute`
// job, or on demand when the feed finds no run yet), and for everyone through the full recompute
// (full-recompute.ts) when libraries changed since the current model. Scores come from
// match-score.ts under the current model (model.ts); see docs/matching.md.
import { DeadlockException, type EntityManager } from '@mikro-orm/postgresql';
import type { Intent } from '@shared/index';
import type { UserPodcastSchema } from '../db/entities';
import { intArray, type Row, type RowOf, sql } from '../db/sql';
import {
  ALL_INTENTS_MASK,
  CANDIDATE_SETTINGS,
  chooseStored,
  intentBit,
  neighbourhoodOf,
  podcastsForPostings,
  rankExactly,
  TopN,
} from './candidates';
import { type FullRecomputeOptions, type RecomputeResult, rebuildEveryone } from './full-recompute';
import { calibrate } from './match-score';
import { currentModel, libraryChangeSeq } from './model';
import { sharedIds } from './score-people';
import {
  buildStore,
  idf,
  type LibraryEntry,
  listeningWeight,
  type Neighbourhood,
  type TasteStore,
  tasteRow,
  withNeighbourhoods,
} from './taste-vector';

export type { RecomputeResult } from './full-recompute';

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
type PostingRow = Pick<RowOf<typeof UserPodcastSchema>, 'user_id' | 'podcast_id' | 'times_listened' | 'episode_count'>;
interface UserIntent {
  user_id: number;
  intent: Intent;
}

const categoriesOf = (row: CategoryColumns): string[] => {
  const list = row.categories ?? [];
  return list.length > 0 ? list : row.category ? [row.category] : [];
};

// ------------------------------------------------------------------ writing rows

interface OutRow {
  userId: number;
  candidateId: number;
  score: number;
  raw: number;
  shared: number[];
}

function outRow(
  userId: number,
  store: TasteStore,
  me: number,
  candidateId: number,
  other: number,
  raw: number,
): OutRow {
  return { userId, candidateId, score: calibrate(raw), raw, shared: sharedIds(store, me, other) };
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
      -- Hidden entries never match; nor shows an import created before their feed was read.
      where up.user_id = any(?::int[]) and not up.hidden and p.verified_at is not null`,
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

/** The stored neighbourhoods of these people (none yet for someone never computed). */
async function neighbourhoodsOf(sql: Sql, userIds: number[]): Promise<Map<number, Neighbourhood>> {
  const result = new Map<number, Neighbourhood>();
  if (userIds.length === 0) return result;
  for (const row of await sql<{ user_id: number; ids: number[]; weights: number[] }>(
    'select user_id, ids, weights from taste_neighbours where user_id = any(?::int[])',
    [intArray(userIds)],
  )) {
    result.set(row.user_id, { ids: row.ids, weights: row.weights.map(Number) });
  }
  return result;
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

/**
 * Recomputes one user's candidates, and keeps the mirror rows symmetric: people now stored for
 * this user get this user in their list with the same score, and people who already listed this
 * user get the new score. Runs in one transaction.
 */
export async function recomputeUser(em: EntityManager, userId: number): Promise<RecomputeResult> {
  return retryOnDeadlock(() => recomputeUserOnce(em, userId));
}

async function recomputeUserOnce(em: EntityManager, userId: number): Promise<RecomputeResult> {
  const { rarity } = await currentModel(em);
  return em.transactional(async (tx) => {
    const sql = sqlOf(tx);
    // One recompute per user at a time; a concurrent one waits and then redoes the work.
    await sql('select pg_advisory_xact_lock(?::int, ?::int)', [COMPUTE_LOCK, userId]);
    const mine = { ...tasteRow((await loadLibraries(sql, [userId])).get(userId) ?? [], rarity), owner: userId };
    const { blocked, acted } = await exclusionsFor(sql, userId);

    // Candidates: people sharing the user's rarer shows, by partial dot product over those shows.
    const top = new TopN(CANDIDATE_SETTINGS.scored);
    if (mine.ids.length > 0) {
      const chosen = podcastsForPostings(mine.ids, rarity.listeners);
      const myWeight = new Map<number, number>();
      for (let k = 0; k < mine.ids.length; k++) myWeight.set(mine.ids[k] as number, mine.weights[k] as number);
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
    const candidates = top.sorted().map((t) => t.key);
    const pool = [...new Set([...candidates, ...holders])];
    const libraries = await loadLibraries(sql, pool);
    // Row 0 is this user, then the pool (people without a visible show are left out).
    const poolIds = pool.filter((id) => libraries.has(id));
    const rowOf = new Map(poolIds.map((id, i) => [id, i + 1]));
    const rows = [
      mine,
      ...poolIds.map((id) => ({ ...tasteRow(libraries.get(id) as LibraryEntry[], rarity), owner: id })),
    ];
    // This user's neighbourhood from their candidates (as the full recompute picks it); the pool's
    // as last stored.
    const shows = buildStore(rows, undefined);
    const mineNb = neighbourhoodOf(
      shows,
      0,
      Int32Array.from(
        candidates.filter((id) => rowOf.has(id)),
        (id) => rowOf.get(id) as number,
      ),
      (row) => poolIds[row - 1] as number,
    );
    const storedNb = await neighbourhoodsOf(sql, poolIds);
    const store = withNeighbourhoods(shows, (i) => (i === 0 ? mineNb : storedNb.get(poolIds[i - 1] as number)));
    const ranked = rankExactly(
      store,
      0,
      store,
      Int32Array.from(poolIds, (_, i) => i + 1),
      (row) => poolIds[row - 1] as number,
    );
    const masks = await activeMasks(sql, poolIds);
    const stored = chooseStored(
      ranked.filter((c) => !blocked.has(c.userId)),
      (c) => masks.get(c.userId) ?? 0,
      (c) => acted.get(c.userId) ?? 0,
    );

    const forward = stored.map((c) => outRow(userId, store, 0, c.userId, c.row, c.raw));
    const byId = new Map(ranked.map((c) => [c.userId, c]));
    const storedIds = new Set(stored.map((c) => c.userId));
    // Mirror rows: everyone stored here, plus everyone who already listed this user.
    const mirrorIds = new Set([...storedIds, ...holders]);
    const mirror: OutRow[] = [];
    const dropMirror: number[] = [];
    for (const other of mirrorIds) {
      const c = byId.get(other);
      if (c && !blocked.has(other)) mirror.push(outRow(other, store, c.row, userId, 0, c.raw));
      else dropMirror.push(other);
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
      `insert into taste_neighbours (user_id, ids, weights) values (?, ?::int[], ?::float8[])
         on conflict (user_id) do update set ids = excluded.ids, weights = excluded.weights`,
      [userId, intArray(mineNb.ids as number[]), `{${(mineNb.weights as number[]).join(',')}}`],
    );
    await sql(
      `insert into feed_candidate_runs (user_id, computed_at) values (?, clock_timestamp())
         on conflict (user_id) do update set computed_at = excluded.computed_at`,
      [userId],
    );
    return { users: 1, rows: forward.length + mirror.length };
  });
}

// ------------------------------------------------------------------ everyone

/**
 * Recomputes everyone (a new model, then every list; full-recompute.ts), then again the people
 * whose library changed while it ran, with the new model. Used by the freshness check, the
 * periodic `matches.recompute {scope:'all'}` job, the benchmark and the evaluation.
 */
export async function recomputeAll(
  em: EntityManager,
  log: (line: string) => void = () => {},
  options: Omit<FullRecomputeOptions, 'log' | 'afterSwap'> = {},
): Promise<RecomputeResult> {
  return rebuildEveryone(em, {
    ...options,
    log,
    afterSwap: async (changed) => {
      for (const userId of changed) await recomputeUser(em.fork(), userId);
    },
  });
}

/** The full recompute is not run again before this many times its last duration has passed. */
export const FULL_RECOMPUTE_GAP_FACTOR = 10;

/**
 * The freshness check (the `matches.recompute {scope:'refresh'}` job, every few seconds): when
 * libraries changed since the current model, and the last full recompute ended at least
 * FULL_RECOMPUTE_GAP_FACTOR x its duration ago, recompute everyone. See docs/matching.md.
 */
export async function refreshIfStale(
  em: EntityManager,
  log: (line: string) => void = () => {},
  now: number = Date.now(),
): Promise<RecomputeResult & { ran: boolean }> {
  const { model } = await currentModel(em);
  const changes = await libraryChangeSeq(em);
  if (model && changes <= model.changeSeq) return { ran: false, users: 0, rows: 0 };
  if (model && now < model.finishedAt.getTime() + FULL_RECOMPUTE_GAP_FACTOR * model.durationMs) {
    return { ran: false, users: 0, rows: 0 };
  }
  const result = await recomputeAll(em, log);
  return { ran: result.users > 0 || !model, ...result };
}
