// Candidate generation and ranking for the precomputed feed. Pure code over in-memory data; the
// database side is in precompute.ts. See docs/matching.md ("Precompute").
import { INTENTS, type Intent } from '@shared/index';
import { showSimilarity, similarity } from './match-score';
import { NEIGHBOURHOOD_SIZE, type Neighbourhood, type TasteStore } from './taste-vector';

export const CANDIDATE_SETTINGS = {
  /** Postings (library entries of other people) read per user to find candidates. */
  postingsBudget: 6000,
  /** Candidates scored exactly per user (best partial scores). */
  scored: 120,
  /** Pending candidates kept per user and intent. */
  keptPerIntent: 30,
  /** Shared podcasts stored per row, for the explanation. */
  sharedKept: 10,
} as const;

export const intentBit = (intent: Intent) => 1 << INTENTS.indexOf(intent);
export const ALL_INTENTS_MASK = (1 << INTENTS.length) - 1;

/**
 * Which of a user's podcasts to read postings for: the rarest first, until the budget of postings
 * is spent (always at least one). Popular shows are skipped here; they still count in the exact score.
 */
export function podcastsForPostings(
  podcastIds: ArrayLike<number>,
  listeners: (podcastId: number) => number,
  budget: number = CANDIDATE_SETTINGS.postingsBudget,
): number[] {
  const ordered = Array.from(podcastIds).sort((a, b) => listeners(a) - listeners(b) || a - b);
  const chosen: number[] = [];
  let spent = 0;
  for (const id of ordered) {
    const cost = listeners(id);
    if (chosen.length > 0 && spent + cost > budget) break;
    chosen.push(id);
    spent += cost;
  }
  return chosen;
}

/** Keeps the n largest (score, key) pairs; ties go to the smaller key, so results are deterministic. */
export class TopN {
  private readonly scores: number[] = [];
  private readonly keys: number[] = [];
  constructor(private readonly n: number) {}

  private less(i: number, j: number): boolean {
    const a = this.scores[i] as number;
    const b = this.scores[j] as number;
    return a < b || (a === b && (this.keys[i] as number) > (this.keys[j] as number));
  }

  private swap(i: number, j: number): void {
    [this.scores[i], this.scores[j]] = [this.scores[j] as number, this.scores[i] as number];
    [this.keys[i], this.keys[j]] = [this.keys[j] as number, this.keys[i] as number];
  }

  push(score: number, key: number): void {
    if (this.n <= 0) return;
    if (this.scores.length < this.n) {
      this.scores.push(score);
      this.keys.push(key);
      let i = this.scores.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.less(i, parent)) break;
        this.swap(i, parent);
        i = parent;
      }
      return;
    }
    const min = this.scores[0] as number;
    if (score < min || (score === min && key > (this.keys[0] as number))) return;
    this.scores[0] = score;
    this.keys[0] = key;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.scores.length && this.less(l, m)) m = l;
      if (r < this.scores.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  /** Keys, best first. */
  sorted(): { key: number; score: number }[] {
    return this.keys
      .map((key, i) => ({ key, score: this.scores[i] as number }))
      .sort((a, b) => b.score - a.score || a.key - b.key);
  }
}

export interface RankedCandidate {
  userId: number;
  raw: number;
  /** Whether the two share at least one visible show (sharers always rank first). */
  shares: boolean;
}

/** Best first: people who share a show before those who do not, then raw, then smaller id. */
export const byRank = (a: RankedCandidate, b: RankedCandidate) =>
  Number(b.shares) - Number(a.shares) || b.raw - a.raw || a.userId - b.userId;

/**
 * Exact scores of row `me` of `mine` against candidates (rows of `theirs`), best first; zero
 * scores dropped. `userIdOf` maps a row of `theirs` to the person's id.
 */
export function rankExactly(
  mine: TasteStore,
  me: number,
  theirs: TasteStore,
  rows: ArrayLike<number>,
  userIdOf: (row: number) => number,
  /** Show similarities already computed for these rows (same order), if any. */
  knownShows?: ArrayLike<number>,
): (RankedCandidate & { row: number })[] {
  const ranked: (RankedCandidate & { row: number })[] = [];
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k] as number;
    const shows = knownShows ? (knownShows[k] as number) : showSimilarity(mine, me, theirs, row);
    const raw = similarity(mine, me, theirs, row, shows);
    if (raw > 0) ranked.push({ userId: userIdOf(row), row, raw, shares: shows > 0 });
  }
  return ranked.sort(byRank);
}

/**
 * From a ranked list, the candidates worth storing: for each intent, the first `keptPerIntent`
 * that are active in it and not already acted on by the user in it. Returns the union, best first.
 */
export function chooseStored<T extends RankedCandidate>(
  ranked: readonly T[],
  activeMask: (candidate: T) => number,
  actedMask: (candidate: T) => number,
  keptPerIntent: number = CANDIDATE_SETTINGS.keptPerIntent,
): T[] {
  const taken = new Array<number>(INTENTS.length).fill(0);
  const stored: T[] = [];
  for (const candidate of ranked) {
    const pending = activeMask(candidate) & ~actedMask(candidate);
    let useful = false;
    for (let i = 0; i < INTENTS.length; i++) {
      if (pending & (1 << i) && (taken[i] as number) < keptPerIntent) {
        taken[i] = (taken[i] as number) + 1;
        useful = true;
      }
    }
    if (useful) stored.push(candidate);
    if (taken.every((t) => t >= keptPerIntent)) break;
  }
  return stored;
}

/**
 * A person's taste neighbourhood: of the given candidates, the NEIGHBOURHOOD_SIZE closest by shared
 * shows (ties: smaller user id), returned by user id ascending with their show similarity.
 */
export function neighbourhoodOf(
  store: TasteStore,
  me: number,
  rows: ArrayLike<number>,
  userIdOf: (row: number) => number,
  knownShows?: ArrayLike<number>,
): Neighbourhood {
  const top = new TopN(NEIGHBOURHOOD_SIZE);
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k] as number;
    const shows = knownShows ? (knownShows[k] as number) : showSimilarity(store, me, store, row);
    if (shows > 0) top.push(shows, userIdOf(row));
  }
  const chosen = top.sorted().sort((a, b) => a.key - b.key);
  return { ids: chosen.map((c) => c.key), weights: chosen.map((c) => c.score) };
}
