// Offline rankings to compare the feed against, and the measures of the evaluation. Pure code over
// libraries (user id -> podcast ids) as stored; see scripts/eval/matching.ts.

/** user id -> the podcast ids of their visible library entries. */
export type Libraries = Map<number, readonly number[]>;
/** user id -> the ids of their top candidates, best first. */
export type TopLists = Map<number, readonly number[]>;

/**
 * Top `k` other people per user by `score(a, b, shared)`, where `shared` is the sum of `weight(p)`
 * over the shows both list. Scores of zero are dropped; ties go to the smaller user id.
 */
function topBy(
  libraries: Libraries,
  k: number,
  weight: (podcastId: number) => number,
  score: (a: number, b: number, shared: number) => number,
): TopLists {
  const postings = new Map<number, number[]>();
  for (const [userId, ids] of libraries) {
    for (const id of ids) {
      let list = postings.get(id);
      if (!list) {
        list = [];
        postings.set(id, list);
      }
      list.push(userId);
    }
  }
  const tops: TopLists = new Map();
  for (const [userId, ids] of libraries) {
    const shared = new Map<number, number>();
    for (const id of ids) {
      const w = weight(id);
      for (const other of postings.get(id) ?? []) {
        if (other !== userId) shared.set(other, (shared.get(other) ?? 0) + w);
      }
    }
    const scored: { id: number; score: number }[] = [];
    for (const [other, s] of shared) {
      const value = score(userId, other, s);
      if (value > 0) scored.push({ id: other, score: value });
    }
    scored.sort((a, b) => b.score - a.score || a.id - b.id);
    tops.set(
      userId,
      scored.slice(0, k).map((c) => c.id),
    );
  }
  return tops;
}

/** Jaccard over the sets of shows: |A ∩ B| / |A ∪ B|. */
export function jaccardTop(libraries: Libraries, k = 10): TopLists {
  const size = (id: number) => libraries.get(id)?.length ?? 0;
  return topBy(
    libraries,
    k,
    () => 1,
    (a, b, shared) => shared / (size(a) + size(b) - shared),
  );
}

/**
 * Cosine over presence vectors weighted by idf(p) = ln((N + 1) / (df(p) + 1)) + 1, N the people
 * with at least one show and df(p) the people listing p.
 */
export function idfCosineTop(libraries: Libraries, k = 10): TopLists {
  const df = new Map<number, number>();
  let people = 0;
  for (const ids of libraries.values()) {
    if (ids.length > 0) people++;
    for (const id of ids) df.set(id, (df.get(id) ?? 0) + 1);
  }
  const idf = (id: number) => Math.log((people + 1) / ((df.get(id) ?? 0) + 1)) + 1;
  const norm = new Map<number, number>();
  for (const [userId, ids] of libraries) norm.set(userId, Math.sqrt(ids.reduce((s, id) => s + idf(id) ** 2, 0)));
  return topBy(
    libraries,
    k,
    (id) => idf(id) ** 2,
    (a, b, dot) => dot / ((norm.get(a) as number) * (norm.get(b) as number)),
  );
}

/**
 * Mean over `users` of the share of their first `k` candidates in their own community. Fewer than
 * `k` candidates count as misses (the share is always out of `k`).
 */
export function precisionAtK(
  tops: TopLists,
  communityOf: ReadonlyMap<number, number>,
  users: readonly number[],
  k = 10,
): number {
  if (users.length === 0) return Number.NaN;
  let total = 0;
  for (const userId of users) {
    const own = communityOf.get(userId);
    const hits = (tops.get(userId) ?? []).slice(0, k).filter((id) => communityOf.get(id) === own).length;
    total += hits / k;
  }
  return total / users.length;
}

/** Mean over `users` of |a ∩ b| / max(1, |b|) between two top lists (b is the reference). */
export function agreement(a: TopLists, b: TopLists, users: readonly number[]): number {
  if (users.length === 0) return Number.NaN;
  let total = 0;
  for (const userId of users) {
    const reference = b.get(userId) ?? [];
    const mine = new Set(a.get(userId) ?? []);
    total += reference.filter((id) => mine.has(id)).length / Math.max(1, reference.length);
  }
  return total / users.length;
}
