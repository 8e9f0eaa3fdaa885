// Whether a demo person likes back (docs/matches.md, "Demo people"): a probability that grows with
// the match %, and one draw per demo person, liker and intent, so that unliking and liking again
// cannot get another answer. Pure and the same everywhere (the worker decides; tests pick people).

/** Likelihood of a like-back at 0 % and at 100 % match; linear in between. */
export const LIKE_BACK_AT_0 = 0.1;
export const LIKE_BACK_AT_100 = 0.9;

/** The chance that a demo person likes back someone they match `matchPercentage` % with. */
export function likeBackProbability(matchPercentage: number): number {
  const pct = Math.min(100, Math.max(0, Number.isFinite(matchPercentage) ? matchPercentage : 0));
  return LIKE_BACK_AT_0 + ((LIKE_BACK_AT_100 - LIKE_BACK_AT_0) * pct) / 100;
}

/** A number in [0, 1) fixed for this demo person, liker and intent (FNV-1a, then a 32-bit finaliser). */
export function likeBackDraw(demoId: number, likerId: number, intent: string): number {
  const key = `demo.likeBack:${demoId}:${likerId}:${intent}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Whether this demo person likes this liker back in this intent, at this match %. */
export const willLikeBack = (demoId: number, likerId: number, intent: string, matchPercentage: number) =>
  likeBackDraw(demoId, likerId, intent) < likeBackProbability(matchPercentage);
