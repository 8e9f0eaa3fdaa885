// The full recompute: a new model (listener counts) from everyone's libraries, everyone's taste
// neighbourhood (pass 1), then everyone's candidate list (pass 2), in worker threads, streamed with
// COPY into fresh tables that replace feed_candidates and taste_neighbours in one short
// transaction. See docs/matching.md.
import { once } from 'node:events';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent } from '@shared/index';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { CANDIDATE_SETTINGS, intentBit } from './candidates';
import { type MatchingModel, saveModel } from './model';
import { BLOCKED, NO_NEIGHBOUR, type PeopleData, PeopleScorer } from './score-people';
import { alloc, buildStore, categoryId, idf, listeningWeight, NEIGHBOURHOOD_SIZE } from './taste-vector';

export interface RecomputeResult {
  users: number;
  rows: number;
}

export interface FullRecomputeOptions {
  log?: (line: string) => void;
  /** Worker threads scoring people (0: inline). Default: the machine's cores, from 5 000 people on. */
  threads?: number;
  /** Called once the libraries are read (tests: change libraries while the recompute runs). */
  afterSnapshot?: () => Promise<void>;
  /** Called after the new tables are in place, with the people whose library changed meanwhile. */
  afterSwap?: (changedUserIds: number[]) => Promise<void>;
}

/**
 * Advisory lock of the one full recompute running at a time (any process): transaction-scoped, held
 * by a transaction that does nothing else on a connection of its own, so it works through a
 * transaction-mode pooler (PgBouncer: no session locks) and holds no table locks while the rebuild
 * reads for minutes (a migration's DDL is not kept waiting by it).
 */
const FULL_LOCK: [number, number] = [0x6d617463, 0x616c6c]; // 'matc', 'all'
/** People scored per message to a thread: small enough to spread work evenly. */
const RANGE = 2000;
const THREADS_FROM_PEOPLE = 5000;

export async function rebuildEveryone(em: EntityManager, options: FullRecomputeOptions = {}): Promise<RecomputeResult> {
  const log = options.log ?? (() => {});
  const url = em.config.get('clientUrl');
  const holder = new pg.Client({ connectionString: url });
  const client = new pg.Client({ connectionString: url });
  let connected = false;
  await holder.connect();
  try {
    await holder.query('begin');
    const [lock] = (await holder.query('select pg_try_advisory_xact_lock($1, $2) as ok', FULL_LOCK)).rows;
    if (!lock?.ok) {
      log('another full recompute is running; skipped');
      return { users: 0, rows: 0 };
    }
    await client.connect();
    connected = true;
    const result = await rebuild(client, options, log);
    await client.query('analyze feed_candidates');
    log(`swapped in; ${result.changed.length} people changed meanwhile`);
    await options.afterSwap?.(result.changed);
    return { users: result.users, rows: result.rows };
  } finally {
    // Ending a connection ends its transaction (the lock's; a failed rebuild's COPY): never awaited
    // behind a COPY that will not finish.
    await Promise.all([connected ? client.end() : undefined, holder.end()].map((p) => p?.catch(() => undefined)));
  }
}

async function rebuild(
  client: pg.Client,
  options: FullRecomputeOptions,
  log: (line: string) => void,
): Promise<RecomputeResult & { changed: number[] }> {
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  // Read the change counter before the libraries: a change racing the read counts as newer.
  const [snap] = (
    await client.query<{ at: Date; seq: string }>(
      `select clock_timestamp() as at, case when is_called then last_value else 0 end as seq from library_changes`,
    )
  ).rows;
  const snapshotAt = snap?.at as Date;
  const data = await loadPeople(client, log);
  await options.afterSnapshot?.();
  const n = data.userIds.length;
  log(`model built for ${n} people, ${data.postRow.length} library rows (${elapsed()})`);

  await client.query('drop table if exists feed_candidates_next');
  await client.query('create table feed_candidates_next (like feed_candidates including defaults)');
  const rows = await scoreEveryone(client, data, options.threads ?? defaultThreads(n), log, elapsed);
  log(`scored and stored ${rows} rows (${elapsed()})`);
  // The memory setting for these two builds only (`set local`: no session state behind a pooler).
  await client.query('begin');
  await client.query("set local maintenance_work_mem = '512MB'");
  await client.query(
    'alter table feed_candidates_next add constraint feed_candidates_next_pkey primary key (user_id, candidate_id)',
  );
  await client.query('create index feed_candidates_next_candidate_id on feed_candidates_next (candidate_id)');
  await client.query('commit');
  log(`indexed (${elapsed()})`);

  const changed = await swapIn(client, data, snapshotAt, {
    users: n,
    changeSeq: Number(snap?.seq ?? 0),
    snapshotAt,
    finishedAt: new Date(),
    durationMs: Date.now() - started,
    podcastIds: data.podcastIds,
    listeners: data.listeners,
  });
  log(`swap ready (${elapsed()})`);
  return { users: n, rows, changed };
}

function defaultThreads(people: number): number {
  return people >= THREADS_FROM_PEOPLE ? Math.max(1, Math.min(4, os.availableParallelism())) : 0;
}

// ------------------------------------------------------------------ loading

type LoadedPeople = PeopleData;

async function loadPeople(client: pg.Client, log: (line: string) => void): Promise<LoadedPeople> {
  const libraries = (
    await client.query<{ user_id: number; ids: number[]; plays: number[]; episodes: number[] }>(
      `select user_id, array_agg(podcast_id order by podcast_id) as ids,
              array_agg(times_listened order by podcast_id) as plays,
              array_agg(coalesce(episode_count, 0) order by podcast_id) as episodes
         from user_podcasts
        where not hidden and podcast_id in (select id from podcasts where verified_at is not null)
        group by user_id order by user_id`,
    )
  ).rows;
  const podcastRows = (
    await client.query<{ id: number; category: string | null; categories: string[] | null }>(
      'select id, category, categories from podcasts where id in (select distinct podcast_id from user_podcasts) order by id',
    )
  ).rows;
  log(`loaded ${libraries.length} libraries`);
  const n = libraries.length;
  const counts = new Map<number, number>();
  for (const row of libraries) for (const id of row.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const podcastIds = Int32Array.from([...counts.keys()].sort((a, b) => a - b));
  const column = new Map<number, number>();
  const listeners = shared(Int32Array, podcastIds.length);
  podcastIds.forEach((id, c) => {
    column.set(id, c);
    listeners[c] = counts.get(id) as number;
  });
  const categoriesOf = new Map<number, number[]>();
  for (const row of podcastRows) {
    const names = row.categories?.length ? row.categories : row.category ? [row.category] : [];
    categoriesOf.set(row.id, [...new Set(names.map(categoryId))]);
  }
  const none: number[] = [];
  const base = buildStore(
    {
      length: n,
      get: (i) => {
        const row = libraries[i] as (typeof libraries)[number];
        return {
          owner: row.user_id,
          ids: row.ids,
          weights: row.ids.map(
            (id, k) =>
              listeningWeight(row.plays[k] as number, row.episodes[k] as number) * idf(counts.get(id) as number, n),
          ),
          categories: (k) => categoriesOf.get(row.ids[k] as number) ?? none,
        };
      },
    },
    undefined,
    true,
  );

  // Neighbourhood rows of fixed width, filled by pass 1.
  const nbStart = shared(Int32Array, n + 1);
  for (let i = 0; i <= n; i++) nbStart[i] = i * NEIGHBOURHOOD_SIZE;
  const nbIds = shared(Int32Array, n * NEIGHBOURHOOD_SIZE).fill(NO_NEIGHBOUR);
  const store = {
    ...base,
    nbStart,
    nbIds,
    nbWeights: shared(Float64Array, n * NEIGHBOURHOOD_SIZE),
    nbNorms: shared(Float64Array, n),
  };
  const col = new Int32Array(base.ids.length);
  for (let k = 0; k < col.length; k++) col[k] = column.get(base.ids[k] as number) as number;

  // Postings per show column.
  const postStart = shared(Int32Array, podcastIds.length + 1);
  for (let k = 0; k < col.length; k++)
    postStart[(col[k] as number) + 1] = (postStart[(col[k] as number) + 1] as number) + 1;
  for (let c = 0; c < podcastIds.length; c++)
    postStart[c + 1] = (postStart[c + 1] as number) + (postStart[c] as number);
  const fill = postStart.slice(0, podcastIds.length);
  const postRow = shared(Int32Array, col.length);
  const postWeight = shared(Float64Array, col.length);
  for (let u = 0; u < n; u++) {
    for (let k = store.start[u] as number; k < (store.start[u + 1] as number); k++) {
      const c = col[k] as number;
      const at = fill[c] as number;
      postRow[at] = u;
      postWeight[at] = store.weights[k] as number;
      fill[c] = at + 1;
    }
  }

  const userIds = shared(Int32Array, n);
  const rowOf = new Map<number, number>();
  libraries.forEach((row, i) => {
    userIds[i] = row.user_id;
    rowOf.set(row.user_id, i);
  });
  const active = shared(Uint8Array, n);
  for (const row of (
    await client.query<{ user_id: number; intent: Intent }>('select user_id, intent from user_profiles where active')
  ).rows) {
    const i = rowOf.get(row.user_id);
    if (i !== undefined) active[i] = (active[i] as number) | intentBit(row.intent);
  }
  const exclusions = await loadExclusions(client, rowOf, n);
  return {
    userIds,
    store,
    podcastIds: sharedCopy(podcastIds),
    listeners,
    postStart,
    postRow,
    postWeight,
    active,
    ...exclusions,
    candRows: shared(Int32Array, n * CANDIDATE_SETTINGS.scored),
    candCount: shared(Int32Array, n),
    candShows: shared(Float64Array, n * CANDIDATE_SETTINGS.scored),
  };
}

/** Blocks (either way) and the intents each person acted on, per row, as shared arrays. */
async function loadExclusions(client: pg.Client, rowOf: Map<number, number>, n: number) {
  const masks = new Map<number, Map<number, number>>();
  const add = (a: number, b: number, bits: number) => {
    const ra = rowOf.get(a);
    const rb = rowOf.get(b);
    if (ra === undefined || rb === undefined) return;
    let m = masks.get(ra);
    if (!m) {
      m = new Map();
      masks.set(ra, m);
    }
    m.set(rb, (m.get(rb) ?? 0) | bits);
  };
  for (const row of (
    await client.query<{ a: number; b: number }>('select blocker_id as a, blocked_id as b from blocks')
  ).rows) {
    add(row.a, row.b, BLOCKED);
    add(row.b, row.a, BLOCKED);
  }
  for (const row of (
    await client.query<{ a: number; b: number; intent: Intent; a_acted: boolean; b_acted: boolean }>(
      `select user1_id as a, user2_id as b, intent, user1_acted as a_acted, user2_acted as b_acted
         from matches where user1_acted or user2_acted`,
    )
  ).rows) {
    if (row.a_acted) add(row.a, row.b, intentBit(row.intent));
    if (row.b_acted) add(row.b, row.a, intentBit(row.intent));
  }
  let total = 0;
  for (const m of masks.values()) total += m.size;
  const exStart = shared(Int32Array, n + 1);
  const exRow = shared(Int32Array, total);
  const exMask = shared(Uint8Array, total);
  let at = 0;
  for (let u = 0; u < n; u++) {
    exStart[u] = at;
    for (const [other, bits] of masks.get(u) ?? []) {
      exRow[at] = other;
      exMask[at] = bits;
      at++;
    }
  }
  exStart[n] = at;
  return { exStart, exRow, exMask };
}

/** Shared memory: worker threads read it without a copy. */
const shared = <T extends Int32Array | Float64Array | Uint8Array>(
  Kind: { new (buffer: ArrayBufferLike): T; BYTES_PER_ELEMENT: number },
  length: number,
): T => alloc(Kind, length, true);

function sharedCopy(array: Int32Array): Int32Array {
  const copy = shared(Int32Array, array.length);
  copy.set(array);
  return copy;
}

// ------------------------------------------------------------------ scoring and writing

type Range = { pass: 1 | 2; from: number; to: number };
type Scored = Range & { rows: number; chunk: Uint8Array };

/** Runs both passes (inline or in threads) and streams the rows; returns how many rows. */
async function scoreEveryone(
  client: pg.Client,
  people: PeopleData,
  threads: number,
  log: (line: string) => void,
  elapsed: () => string,
): Promise<number> {
  const n = people.userIds.length;
  const inline = new PeopleScorer(people);
  const workers =
    threads > 0
      ? Array.from(
          { length: threads },
          () => new Worker(new URL('./score-people.thread.mjs', import.meta.url), { workerData: people, execArgv: [] }),
        )
      : [];
  const runPass = async (pass: 1 | 2, done: (result: Scored) => Promise<void>) => {
    const ranges: Range[] = [];
    for (let from = 0; from < n; from += RANGE) ranges.push({ pass, from, to: Math.min(n, from + RANGE) });
    if (workers.length === 0) {
      for (const range of ranges) {
        if (pass === 1) {
          inline.findCandidates(range.from, range.to);
          await done({ ...range, rows: 0, chunk: new Uint8Array(0) });
        } else {
          const { text, rows } = inline.scoreRange(range.from, range.to);
          await done({ ...range, rows, chunk: Buffer.from(text) });
        }
      }
      return;
    }
    await Promise.all(workers.map((worker) => feedWorker(worker, ranges, done)));
  };
  try {
    await runPass(1, async () => {});
    log(`neighbourhoods of ${n} people (${elapsed()})`);
    await writeNeighbourhoods(client, people);
    log(`neighbourhoods stored (${elapsed()})`);
    const copy = client.query(
      copyFrom('copy feed_candidates_next (user_id, candidate_id, score, raw, shared_podcast_ids) from stdin'),
    );
    const finished = once(copy, 'finish');
    let rows = 0;
    let scored = 0;
    await runPass(2, async (result) => {
      if (result.chunk.length > 0 && !copy.write(result.chunk)) await once(copy, 'drain');
      rows += result.rows;
      const before = Math.floor(scored / 100_000);
      scored += result.to - result.from;
      if (Math.floor(scored / 100_000) > before) log(`scored ${scored}/${n} people (${elapsed()})`);
    });
    copy.end();
    await finished;
    return rows;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/** Hands ranges to one thread, one at a time; the next goes out once the last result is handled. */
function feedWorker(worker: Worker, ranges: Range[], done: (result: Scored) => Promise<void>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const handOut = () => {
      const range = ranges.shift();
      if (!range) {
        worker.off('message', onMessage);
        worker.off('error', reject);
        return resolve();
      }
      worker.postMessage(range);
    };
    const onMessage = (result: Scored) => {
      done(result).then(handOut, reject);
    };
    worker.on('message', onMessage);
    worker.on('error', reject);
    handOut();
  });
}

/** Everyone's neighbourhood into taste_neighbours_next (COPY). */
async function writeNeighbourhoods(client: pg.Client, people: PeopleData): Promise<void> {
  await client.query('drop table if exists taste_neighbours_next');
  await client.query('create table taste_neighbours_next (like taste_neighbours including defaults)');
  const copy = client.query(copyFrom('copy taste_neighbours_next (user_id, ids, weights) from stdin'));
  const finished = once(copy, 'finish');
  const { store, userIds } = people;
  let lines: string[] = [];
  for (let u = 0; u < userIds.length; u++) {
    const ids: number[] = [];
    const weights: number[] = [];
    for (let k = store.nbStart[u] as number; k < (store.nbStart[u + 1] as number); k++) {
      if (store.nbIds[k] === NO_NEIGHBOUR) break;
      ids.push(store.nbIds[k] as number);
      weights.push(store.nbWeights[k] as number);
    }
    lines.push(`${userIds[u]}\t{${ids.join(',')}}\t{${weights.join(',')}}`);
    if (lines.length >= 5000 || u === userIds.length - 1) {
      if (!copy.write(`${lines.join('\n')}\n`)) await once(copy, 'drain');
      lines = [];
    }
  }
  copy.end();
  await finished;
  await client.query(
    'alter table taste_neighbours_next add constraint taste_neighbours_next_pkey primary key (user_id)',
  );
}

// ------------------------------------------------------------------ publishing

/**
 * Replaces feed_candidates by the new table and publishes the model, in one short transaction. People
 * recomputed since the snapshot (their library changed while this ran) keep their newer list;
 * their ids are returned so they can be recomputed with the new model.
 */
async function swapIn(
  client: pg.Client,
  data: LoadedPeople,
  snapshotAt: Date,
  model: Omit<MatchingModel, 'version'>,
): Promise<number[]> {
  await client.query('begin');
  try {
    const changed = await swapTables(client, data, snapshotAt, model);
    await client.query('commit');
    return changed;
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

async function swapTables(
  client: pg.Client,
  data: LoadedPeople,
  snapshotAt: Date,
  model: Omit<MatchingModel, 'version'>,
): Promise<number[]> {
  await client.query('lock table feed_candidates, taste_neighbours in access exclusive mode');
  const changed = (
    await client.query<{ user_id: number }>('select user_id from feed_candidate_runs where computed_at > $1', [
      snapshotAt,
    ])
  ).rows.map((r) => r.user_id);
  const gone = (
    await client.query<{ id: number }>(
      'select x as id from unnest($1::int[]) x where not exists (select 1 from users u where u.id = x)',
      [Array.from(data.userIds)],
    )
  ).rows.map((r) => r.id);
  if (changed.length > 0) {
    await client.query('delete from feed_candidates_next where user_id = any($1::int[])', [changed]);
    await client.query(
      'insert into feed_candidates_next select * from feed_candidates where user_id = any($1::int[])',
      [changed],
    );
  }
  if (gone.length > 0) {
    await client.query(
      'delete from feed_candidates_next where user_id = any($1::int[]) or candidate_id = any($1::int[])',
      [gone],
    );
  }
  if (gone.length > 0) await client.query('delete from taste_neighbours_next where user_id = any($1::int[])', [gone]);
  if (changed.length > 0) {
    await client.query('delete from taste_neighbours_next where user_id = any($1::int[])', [changed]);
    await client.query(
      'insert into taste_neighbours_next select * from taste_neighbours where user_id = any($1::int[])',
      [changed],
    );
  }
  await client.query('drop table taste_neighbours');
  await client.query('alter table taste_neighbours_next rename to taste_neighbours');
  await client.query(
    'alter table taste_neighbours rename constraint taste_neighbours_next_pkey to taste_neighbours_pkey',
  );
  await client.query('drop table feed_candidates');
  await client.query('alter table feed_candidates_next rename to feed_candidates');
  await client.query('alter table feed_candidates rename constraint feed_candidates_next_pkey to feed_candidates_pkey');
  await client.query('alter index feed_candidates_next_candidate_id rename to feed_candidates_candidate_id_index');
  await client.query(
    `insert into feed_candidate_runs (user_id, computed_at) select id, $1 from users where created_at <= $1
     on conflict (user_id) do update set computed_at = excluded.computed_at
       where feed_candidate_runs.computed_at < excluded.computed_at`,
    [snapshotAt],
  );
  await saveModel(client, model);
  return changed;
}
