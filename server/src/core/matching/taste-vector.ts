// A user's taste as a sparse vector over podcasts (and one over categories), weighted by how much
// they listen and by how rare each show is. Pure code: no I/O. Formula: docs/matching.md.

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

export interface TasteVector {
  /** Podcast ids, ascending, unique. */
  ids: Int32Array;
  /** Weight of ids[i]. */
  weights: Float64Array;
  norm: number;
  /** Category ids (interned, ascending) and their weights. */
  categoryIds: Int32Array;
  categoryWeights: Float64Array;
  categoryNorm: number;
}

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

/**
 * Builds the taste vector of one library. Hidden entries are ignored entirely. A show's weight is
 * split evenly over its categories for the category vector.
 */
export function tasteVector(entries: readonly LibraryEntry[], rarity: Rarity): TasteVector {
  const visible = entries.filter((e) => !e.hidden);
  const byId = new Map<number, LibraryEntry>();
  for (const entry of visible) if (!byId.has(entry.podcastId)) byId.set(entry.podcastId, entry);
  const sorted = [...byId.keys()].sort((a, b) => a - b);
  const ids = Int32Array.from(sorted);
  const weights = new Float64Array(ids.length);
  const categories = new Map<number, number>();
  let sumSq = 0;
  for (let i = 0; i < ids.length; i++) {
    const entry = byId.get(sorted[i] as number) as LibraryEntry;
    const w =
      listeningWeight(entry.timesListened, entry.episodeCount) * idf(rarity.listeners(entry.podcastId), rarity.users);
    weights[i] = w;
    sumSq += w * w;
    const cats = [...new Set(entry.categories.map(categoryId))];
    for (const c of cats) categories.set(c, (categories.get(c) ?? 0) + w / cats.length);
  }
  const categoryIds = Int32Array.from([...categories.keys()].sort((a, b) => a - b));
  const categoryWeights = new Float64Array(categoryIds.length);
  let catSq = 0;
  for (let i = 0; i < categoryIds.length; i++) {
    const w = categories.get(categoryIds[i] as number) as number;
    categoryWeights[i] = w;
    catSq += w * w;
  }
  return { ids, weights, norm: Math.sqrt(sumSq), categoryIds, categoryWeights, categoryNorm: Math.sqrt(catSq) };
}

/** Rarity from a plain map (tests, small populations). */
export function rarityFromCounts(users: number, counts: ReadonlyMap<number, number>): Rarity {
  return { users, listeners: (id) => counts.get(id) ?? 0 };
}
