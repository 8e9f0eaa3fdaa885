// People's tastes as sparse vectors over podcasts (and over categories), weighted by how much they
// listen and how rare each show is, plus each person's taste neighbourhood (the people whose shows
// are most like theirs). Stored flat (one row per person) so the full recompute can share them
// with worker threads without copying. Pure code: no I/O. Formula: docs/matching.md.

/** One row of a user's library, as the matching engine needs it. */
export interface LibraryEntry {
  podcastId: number;
  timesListened: number;
  episodeCount: number | null;
  hidden: boolean;
  /** The show's categories (primary first); may be empty. */
  categories: readonly string[];
}

/** How many people list each podcast (visible entries only), and how many people have any. */
export interface Rarity {
  users: number;
  listeners(podcastId: number): number;
}

/** People in a taste neighbourhood: the closest by shared shows (docs/matching.md). */
export const NEIGHBOURHOOD_SIZE = 32;

/** A person's neighbourhood: user ids ascending and their show similarity to the person. */
export interface Neighbourhood {
  ids: ArrayLike<number>;
  weights: ArrayLike<number>;
}

/** Several people's taste vectors, flat: row i spans start[i]..start[i+1] of ids/weights. */
export interface TasteStore {
  size: number;
  /** The user id of each row (0 where unknown, e.g. a lone vector in a test). */
  owners: Int32Array;
  start: Int32Array;
  /** Podcast ids, ascending within a row. */
  ids: Int32Array;
  weights: Float64Array;
  norms: Float64Array;
  catStart: Int32Array;
  /** Category ids (interned, ascending within a row). */
  catIds: Int32Array;
  catWeights: Float64Array;
  catNorms: Float64Array;
  /** Neighbourhoods: user ids ascending within a row, their weights and each row's norm. */
  nbStart: Int32Array;
  nbIds: Int32Array;
  nbWeights: Float64Array;
  nbNorms: Float64Array;
}

/** One person's taste (a store of one row). */
export type TasteVector = TasteStore;

/** Listening weight of one show: presence counts 1, then logarithmic in plays and episodes. */
export function listeningWeight(timesListened: number, episodeCount: number | null): number {
  const plays = Math.max(0, timesListened || 0);
  const episodes = Math.max(0, episodeCount ?? 0);
  return 1 + Math.log1p(plays) + 0.5 * Math.log1p(episodes);
}

/** Smoothed inverse document frequency: a show everyone lists weighs 1, a show one person lists ~ln N. */
export function idf(listeners: number, users: number): number {
  const n = Math.max(users, listeners, 0);
  return Math.log((n + 1) / (Math.max(listeners, 0) + 1)) + 1;
}

/** Categories are interned to small integers so vectors compare with integer merges. */
const categoryIndex = new Map<string, number>();
export function categoryId(name: string): number {
  const key = name.trim().toLowerCase();
  let id = categoryIndex.get(key);
  if (id === undefined) {
    id = categoryIndex.size;
    categoryIndex.set(key, id);
  }
  return id;
}

/** A person's visible shows, ascending by id: what a store row is built from. */
export interface TasteRow {
  /** The person's user id, when known. */
  owner?: number;
  ids: ArrayLike<number>;
  /** w(p) = listening weight x idf, same order as ids. */
  weights: ArrayLike<number>;
  /** Interned category ids of each show (same order as ids). */
  categories: (i: number) => readonly number[];
}

type TypedArrayKind<T> = { new (buffer: ArrayBufferLike): T; BYTES_PER_ELEMENT: number };

/** A typed array, in shared memory when worker threads will read it. */
export function alloc<T extends Int32Array | Float64Array | Uint8Array>(
  Kind: TypedArrayKind<T>,
  length: number,
  shared: boolean,
): T {
  const bytes = length * Kind.BYTES_PER_ELEMENT;
  return new Kind(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/**
 * Builds a store from rows. Buffers can be shared (SharedArrayBuffer) so worker threads read the
 * same memory.
 */
export function buildStore(
  rows: readonly TasteRow[] | { length: number; get(i: number): TasteRow },
  neighbourhoods: ((i: number) => Neighbourhood | undefined) | undefined,
  shared = false,
): TasteStore {
  const count = 'get' in rows ? rows.length : rows.length;
  const rowAt = (i: number): TasteRow => ('get' in rows ? rows.get(i) : (rows[i] as TasteRow));
  let total = 0;
  for (let i = 0; i < count; i++) total += rowAt(i).ids.length;
  const start = alloc(Int32Array, count + 1, shared);
  const ids = alloc(Int32Array, total, shared);
  const weights = alloc(Float64Array, total, shared);
  const norms = alloc(Float64Array, count, shared);
  const catStart = alloc(Int32Array, count + 1, shared);
  const catChunks: { ids: Int32Array; weights: Float64Array }[] = [];
  const catNorms = alloc(Float64Array, count, shared);
  let at = 0;
  let catTotal = 0;
  for (let i = 0; i < count; i++) {
    const row = rowAt(i);
    start[i] = at;
    let sumSq = 0;
    const categories = new Map<number, number>(); // a handful of entries per person
    for (let k = 0; k < row.ids.length; k++) {
      const w = row.weights[k] as number;
      ids[at + k] = row.ids[k] as number;
      weights[at + k] = w;
      sumSq += w * w;
      const cats = row.categories(k);
      for (const c of cats) categories.set(c, (categories.get(c) ?? 0) + w / cats.length);
    }
    norms[i] = Math.sqrt(sumSq);
    at += row.ids.length;
    const catIds = Int32Array.from([...categories.keys()].sort((a, b) => a - b));
    const catWeights = new Float64Array(catIds.length);
    let catSq = 0;
    for (let k = 0; k < catIds.length; k++) {
      const w = categories.get(catIds[k] as number) as number;
      catWeights[k] = w;
      catSq += w * w;
    }
    catNorms[i] = Math.sqrt(catSq);
    catStart[i] = catTotal;
    catTotal += catIds.length;
    catChunks.push({ ids: catIds, weights: catWeights });
  }
  start[count] = at;
  catStart[count] = catTotal;
  const catIds = alloc(Int32Array, catTotal, shared);
  const catWeights = alloc(Float64Array, catTotal, shared);
  for (let i = 0; i < count; i++) {
    const chunk = catChunks[i] as { ids: Int32Array; weights: Float64Array };
    catIds.set(chunk.ids, catStart[i] as number);
    catWeights.set(chunk.weights, catStart[i] as number);
  }
  const owners = alloc(Int32Array, count, shared);
  for (let i = 0; i < count; i++) owners[i] = rowAt(i).owner ?? 0;
  const store = { size: count, owners, start, ids, weights, norms, catStart, catIds, catWeights, catNorms };
  return withNeighbourhoods(store, neighbourhoods ?? (() => undefined), shared);
}

/** The store with these neighbourhoods (replacing any it had). */
export function withNeighbourhoods(
  store: Omit<TasteStore, 'nbStart' | 'nbIds' | 'nbWeights' | 'nbNorms'>,
  neighbourhoodOf: (i: number) => Neighbourhood | undefined,
  shared = false,
): TasteStore {
  let total = 0;
  for (let i = 0; i < store.size; i++) total += neighbourhoodOf(i)?.ids.length ?? 0;
  const nbStart = alloc(Int32Array, store.size + 1, shared);
  const nbIds = alloc(Int32Array, total, shared);
  const nbWeights = alloc(Float64Array, total, shared);
  const nbNorms = alloc(Float64Array, store.size, shared);
  let at = 0;
  for (let i = 0; i < store.size; i++) {
    nbStart[i] = at;
    const nb = neighbourhoodOf(i);
    let sq = 0;
    for (let k = 0; k < (nb?.ids.length ?? 0); k++) {
      const w = nb?.weights[k] as number;
      nbIds[at] = nb?.ids[k] as number;
      nbWeights[at] = w;
      sq += w * w;
      at++;
    }
    nbNorms[i] = Math.sqrt(sq);
  }
  nbStart[store.size] = at;
  return { ...store, nbStart, nbIds, nbWeights, nbNorms };
}

/** The taste row of one library under the given rarity: hidden entries dropped, ids ascending. */
export function tasteRow(entries: readonly LibraryEntry[], rarity: Rarity): TasteRow {
  const byId = new Map<number, LibraryEntry>();
  for (const entry of entries) if (!entry.hidden && !byId.has(entry.podcastId)) byId.set(entry.podcastId, entry);
  const sorted = [...byId.keys()].sort((a, b) => a - b);
  const weights = sorted.map((id) => {
    const entry = byId.get(id) as LibraryEntry;
    return listeningWeight(entry.timesListened, entry.episodeCount) * idf(rarity.listeners(id), rarity.users);
  });
  const categories = sorted.map((id) => [...new Set((byId.get(id) as LibraryEntry).categories.map(categoryId))]);
  return { ids: sorted, weights, categories: (i) => categories[i] as number[] };
}

/** Builds the taste vector of one library. Hidden entries are ignored entirely. */
export function tasteVector(
  entries: readonly LibraryEntry[],
  rarity: Rarity,
  neighbourhood?: Neighbourhood,
): TasteVector {
  return buildStore([tasteRow(entries, rarity)], () => neighbourhood);
}

/** Rarity from a plain map (tests, small populations). */
export function rarityFromCounts(users: number, counts: ReadonlyMap<number, number>): Rarity {
  return { users, listeners: (id) => counts.get(id) ?? 0 };
}
