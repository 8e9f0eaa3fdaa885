import type { Intent } from '@shared/constants';
import { INTENT_INFO } from '@shared/constants';
import type { FeedItem } from '@shared/schemas/feed';
import { placeholderUrl } from '@/components/podcast-artwork';

/**
 * A display name with emoji, pictographs, variation selectors, joiners and private-use characters
 * removed and the remaining whitespace collapsed (SPEC: "emoji and symbols stripped").
 */
export function cleanDisplayName(name: string): string {
  return name
    .replace(/\p{Extended_Pictographic}|\p{Emoji_Presentation}|\p{Emoji_Modifier}|\p{Co}/gu, '')
    .replace(/[\u200d\ufe0e\ufe0f\u20e3]|[\u{E0020}-\u{E007F}]|[\u{1F1E6}-\u{1F1FF}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Thresholds of the feed card gestures (SPEC section 2, Feed). */
export const GESTURE = {
  verticalPx: 80,
  horizontalPx: 150,
  hintPx: 20,
  exitMs: 300,
} as const;

export type DragDecision = 'next' | 'previous' | 'profile' | 'matches' | 'none';

/** What a finished drag by (x, y) pixels does: the dominant axis decides, then its threshold. */
export function decideDrag(offset: { x: number; y: number }): DragDecision {
  const { x, y } = offset;
  if (Math.abs(x) >= Math.abs(y)) {
    if (x > GESTURE.horizontalPx) return 'profile';
    if (x < -GESTURE.horizontalPx) return 'matches';
    return 'none';
  }
  if (y < -GESTURE.verticalPx) return 'next';
  if (y > GESTURE.verticalPx) return 'previous';
  return 'none';
}

/** Which side hint a drag in progress shows (past 20 px): left shows 'Matches', right 'Profile'. */
export function dragHint(x: number): 'matches' | 'profile' | null {
  if (x > GESTURE.hintPx) return 'profile';
  if (x < -GESTURE.hintPx) return 'matches';
  return null;
}

/** The ring's target: the match percentage clamped to 0..100 as a fraction of the circle. */
export function ringTarget(matchPercentage: number): number {
  if (!Number.isFinite(matchPercentage)) return 0;
  return Math.min(100, Math.max(0, matchPercentage)) / 100;
}

/** Display name for the card: the intent profile's, else the user's, cleaned; never empty. */
export function feedDisplayName(item: FeedItem): string {
  return (
    cleanDisplayName(item.profile?.displayName ?? item.displayName) || cleanDisplayName(item.displayName) || 'Listener'
  );
}

/** Tagline for the intent: the profile's, the user's intent tagline, the generic one, else the default. */
export function feedTagline(item: FeedItem, intent: Intent): string {
  const info = INTENT_INFO[intent];
  return item.profile?.tagline ?? item[info.taglineField] ?? item.tagline ?? info.defaultTagline;
}

/** SPEC section 5 avatar order: the user's picture, the profile's picture, else the letter placeholder. */
export function feedAvatar(item: FeedItem): string {
  return item.profilePicture ?? item.profile?.profilePicture ?? placeholderUrl(feedDisplayName(item));
}

export function feedVideo(item: FeedItem): string | null {
  return item.profile?.videoIntroUrl ?? item.videoIntroUrl ?? null;
}
