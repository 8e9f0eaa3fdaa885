// Demo people answer likes like people would (docs/matches.md, "Demo people"): some time after the
// like (a delayed `demo.likeBack` job), they like back with a probability that grows with the match
// %, drawn once per pair and intent so that unliking and liking again cannot get another answer.
import type { EntityManager } from '@mikro-orm/postgresql';
import { willLikeBack } from '@shared/demo-like-back';
import type { Intent } from '@shared/index';
import type { ArtworkUrls } from '../artwork/artwork-urls';
import { sql } from '../db/sql';
import type { Publisher } from '../realtime/publisher';
import { announceMutualMatch, decide, type MatchRecord, unreadMatchCounts } from './decide';

export { likeBackDraw, likeBackProbability, willLikeBack } from '@shared/demo-like-back';

/** The delay of a demo person's answer: between min and max seconds (DEMO_REPLY_DELAY_SECONDS). */
export interface DelayRange {
  minMs: number;
  maxMs: number;
}

export const DEFAULT_DEMO_REPLY_DELAY = '20-180';

/** Parses "min-max" or "n" (seconds, fractions allowed) into a range; null when it is not one. */
export function parseDelayRange(text: string): DelayRange | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)\s*)?$/.exec(text);
  if (!match) return null;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : Number(match[2]);
  if (max < min) return null;
  return { minMs: min * 1000, maxMs: max * 1000 };
}

/** A delay drawn uniformly from the range. */
export const replyDelayMs = (range: DelayRange, random: () => number = Math.random) =>
  Math.round(range.minMs + (range.maxMs - range.minMs) * random());

export interface LikeBackInput {
  demoId: number;
  likerId: number;
  intent: Intent;
}

/**
 * The demo person's answer to `likerId`'s like. Likes back only if the draw says so and the like is
 * still there, through the same rules as a person's like (`decide`: pair lock, the liker still
 * active in the intent, no block either way, not unmatched, one mutual transition). A pair that
 * became mutual is announced to both people ('match:new' unless blocked since) and their unread
 * badges are pushed.
 */
export async function answerLike(
  em: EntityManager,
  publisher: Publisher,
  artwork: ArtworkUrls,
  { demoId, likerId, intent }: LikeBackInput,
): Promise<{ likedBack: boolean; mutual: boolean }> {
  const [row] = await sql<Pick<MatchRecord, 'match_percentage'>>(
    em,
    `select m.match_percentage from matches m join users d on d.id = ? and d.is_demo
      where m.user1_id = ? and m.user2_id = ? and m.intent = ?`,
    [demoId, Math.min(demoId, likerId), Math.max(demoId, likerId), intent],
  );
  if (!row || !willLikeBack(demoId, likerId, intent, row.match_percentage)) return { likedBack: false, mutual: false };
  const result = await decide(em, demoId, likerId, intent, true, { onlyIfTheyLike: true });
  if (!result.ok) return { likedBack: false, mutual: false };
  if (result.becameMutual) {
    await announceMutualMatch(em, publisher, artwork, result.row);
    for (const userId of [demoId, likerId]) {
      publisher.emit('badges:unread', { unreadMatches: await unreadMatchCounts(em, userId) }, { userId });
    }
  }
  return { likedBack: true, mutual: result.becameMutual };
}
