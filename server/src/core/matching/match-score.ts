// Match % of two taste vectors: rarity-weighted cosine over shows blended with cosine over
// categories, calibrated to 0-100. Pure, symmetric and deterministic. Formula: docs/matching.md.
import type { TasteVector } from './taste-vector';

/** Share of the show-level similarity in the blend; the rest is category-level. */
export const SHOW_WEIGHT = 0.85;
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

function sparseDot(aIds: Int32Array, aW: Float64Array, bIds: Int32Array, bW: Float64Array): number {
  // Merge in ascending id order: the same additions in the same order whichever side is `a`.
  let i = 0;
  let j = 0;
  let dot = 0;
  while (i < aIds.length && j < bIds.length) {
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

/** The raw similarity alone (no allocation): what the candidate precompute ranks by. */
export function rawSimilarity(a: TasteVector, b: TasteVector): number {
  const shows = cosine(sparseDot(a.ids, a.weights, b.ids, b.weights), a.norm, b.norm);
  const categories = cosine(
    sparseDot(a.categoryIds, a.categoryWeights, b.categoryIds, b.categoryWeights),
    a.categoryNorm,
    b.categoryNorm,
  );
  return SHOW_WEIGHT * shows + (1 - SHOW_WEIGHT) * categories;
}

/** The shows both list, ordered by their contribution to the show-level cosine. */
export function sharedPodcasts(a: TasteVector, b: TasteVector): SharedPodcast[] {
  const shared: SharedPodcast[] = [];
  const denominator = a.norm * b.norm;
  let i = 0;
  let j = 0;
  while (i < a.ids.length && j < b.ids.length) {
    const x = a.ids[i] as number;
    const y = b.ids[j] as number;
    if (x === y) {
      const product = (a.weights[i] as number) * (b.weights[j] as number);
      shared.push({ podcastId: x, contribution: denominator > 0 ? product / denominator : 0 });
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared.sort((p, q) => q.contribution - p.contribution || p.podcastId - q.podcastId);
}

export function matchScore(a: TasteVector, b: TasteVector): MatchScore {
  const raw = rawSimilarity(a, b);
  return { raw, percentage: calibrate(raw), shared: sharedPodcasts(a, b) };
}
