// Match % of two people: rarity-weighted cosine over the shows they share, the similarity of their
// taste neighbourhoods (the people closest to each) and cosine over categories, calibrated to 0-100.
// Someone who shares no show is capped as a weak match. Pure, symmetric and deterministic.
// Formula: docs/matching.md.
import type { TasteStore, TasteVector } from './taste-vector';

/** Shares of the blend: shared shows, taste neighbourhood, categories (sum 1). */
export const SHOW_WEIGHT = 0.45;
export const NEIGHBOURHOOD_WEIGHT = 0.4;
export const CATEGORY_WEIGHT = 0.15;
/** Without a shared show the raw similarity is at most this (calibrated: 18 %). */
export const NO_SHARED_SHOW_CAP = 0.05;
/** Steepness of the calibration curve (raw 0.1 -> 33 %, 0.2 -> 56 %, 0.3 -> 71 %, 1 -> 100 %). */
export const CALIBRATION_K = 4;
const CALIBRATION_SCALE = 1 - Math.exp(-CALIBRATION_K);

export interface SharedPodcast {
  podcastId: number;
  /** This show's share of the show-level cosine. */
  contribution: number;
}

export interface MatchScore {
  /** Uncalibrated similarity in [0, 1]. */
  raw: number;
  /** Calibrated match percentage, an integer 0-100. */
  percentage: number;
  /** Shows both list (visible), largest contribution first, then by id. */
  shared: SharedPodcast[];
}

function sparseDot(
  aIds: Int32Array,
  aW: Float64Array,
  aFrom: number,
  aTo: number,
  bIds: Int32Array,
  bW: Float64Array,
  bFrom: number,
  bTo: number,
): number {
  // Merge in ascending id order: the same additions in the same order whichever side is `a`.
  let i = aFrom;
  let j = bFrom;
  let dot = 0;
  while (i < aTo && j < bTo) {
    const x = aIds[i] as number;
    const y = bIds[j] as number;
    if (x === y) {
      dot += (aW[i] as number) * (bW[j] as number);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return dot;
}

function cosine(dot: number, normA: number, normB: number): number {
  if (normA === 0 || normB === 0) return 0;
  return Math.min(1, Math.max(0, dot / (normA * normB)));
}

/** Maps the raw similarity onto 0-100: concave, 0 -> 0 and 1 -> 100 exactly. */
export function calibrate(raw: number): number {
  if (raw <= 0) return 0;
  if (raw >= 1) return 100;
  return Math.round((100 * (1 - Math.exp(-CALIBRATION_K * raw))) / CALIBRATION_SCALE);
}

/** Cosine over shared shows of row i of `a` and row j of `b` (0 when they share none). */
export function showSimilarity(a: TasteStore, i: number, b: TasteStore, j: number): number {
  const dot = sparseDot(
    a.ids,
    a.weights,
    a.start[i] as number,
    a.start[i + 1] as number,
    b.ids,
    b.weights,
    b.start[j] as number,
    b.start[j + 1] as number,
  );
  return cosine(dot, a.norms[i] as number, b.norms[j] as number);
}

/**
 * Similarity of the two people's taste neighbourhoods: cosine of their neighbour weights, each
 * leaving out the other person (so two identical people compare as identical). Two members of one
 * taste community are close to the same people even when they share few shows. Null when either
 * has no other neighbour: then the match is judged on shows and categories alone.
 */
export function neighbourhoodSimilarity(a: TasteStore, i: number, b: TasteStore, j: number): number | null {
  const aId = a.owners[i] as number;
  const bId = b.owners[j] as number;
  let x = a.nbStart[i] as number;
  let y = b.nbStart[j] as number;
  const xEnd = a.nbStart[i + 1] as number;
  const yEnd = b.nbStart[j + 1] as number;
  let dot = 0;
  let aOnB = 0;
  let bOnA = 0;
  while (x < xEnd || y < yEnd) {
    const p = x < xEnd ? (a.nbIds[x] as number) : Number.MAX_SAFE_INTEGER;
    const q = y < yEnd ? (b.nbIds[y] as number) : Number.MAX_SAFE_INTEGER;
    if (p === q) {
      dot += (a.nbWeights[x] as number) * (b.nbWeights[y] as number);
      x++;
      y++;
    } else if (p < q) {
      if (p === bId) aOnB = a.nbWeights[x] as number;
      x++;
    } else {
      if (q === aId) bOnA = b.nbWeights[y] as number;
      y++;
    }
  }
  const normA = Math.sqrt(Math.max(0, (a.nbNorms[i] as number) ** 2 - aOnB * aOnB));
  const normB = Math.sqrt(Math.max(0, (b.nbNorms[j] as number) ** 2 - bOnA * bOnA));
  if (normA < 1e-12 || normB < 1e-12) return null;
  return cosine(dot, normA, normB);
}

/**
 * The raw similarity of row i of `a` and row j of `b` (no allocation): what the precompute ranks
 * by. `shows` may be passed when already known.
 */
export function similarity(
  a: TasteStore,
  i: number,
  b: TasteStore,
  j: number,
  shows = showSimilarity(a, i, b, j),
): number {
  const categories = cosine(
    sparseDot(
      a.catIds,
      a.catWeights,
      a.catStart[i] as number,
      a.catStart[i + 1] as number,
      b.catIds,
      b.catWeights,
      b.catStart[j] as number,
      b.catStart[j + 1] as number,
    ),
    a.catNorms[i] as number,
    b.catNorms[j] as number,
  );
  const neighbours = neighbourhoodSimilarity(a, i, b, j);
  const raw =
    neighbours === null
      ? (SHOW_WEIGHT * shows + CATEGORY_WEIGHT * categories) / (SHOW_WEIGHT + CATEGORY_WEIGHT)
      : SHOW_WEIGHT * shows + NEIGHBOURHOOD_WEIGHT * neighbours + CATEGORY_WEIGHT * categories;
  return shows > 0 ? raw : Math.min(raw, NO_SHARED_SHOW_CAP);
}

/** The shows both list, ordered by their contribution to the show-level cosine. */
export function sharedPodcasts(a: TasteStore, i: number, b: TasteStore, j: number): SharedPodcast[] {
  const shared: SharedPodcast[] = [];
  const denominator = (a.norms[i] as number) * (b.norms[j] as number);
  let x = a.start[i] as number;
  let y = b.start[j] as number;
  const xEnd = a.start[i + 1] as number;
  const yEnd = b.start[j + 1] as number;
  while (x < xEnd && y < yEnd) {
    const p = a.ids[x] as number;
    const q = b.ids[y] as number;
    if (p === q) {
      const product = (a.weights[x] as number) * (b.weights[y] as number);
      shared.push({ podcastId: p, contribution: denominator > 0 ? product / denominator : 0 });
      x++;
      y++;
    } else if (p < q) x++;
    else y++;
  }
  return shared.sort((p, q) => q.contribution - p.contribution || p.podcastId - q.podcastId);
}

/** Whole score of two one-person vectors (tests, explanations). */
export function matchScore(a: TasteVector, b: TasteVector): MatchScore {
  const raw = similarity(a, 0, b, 0);
  return { raw, percentage: calibrate(raw), shared: sharedPodcasts(a, 0, b, 0) };
}
