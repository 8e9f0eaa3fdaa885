import type { Intent } from '@shared/constants';
import { INTENT_INFO } from '@shared/constants';
import { displayName } from '@shared/display-name';
import type { FeedItem } from '@shared/schemas/feed';
import { pickPicture } from '@/components/person-picture';
import { pictureSrc } from '@/lib/image-url';

/** How long after sign-up the feed greets a person as new ("Welcome") rather than returning. */
export const FIRST_VISIT_WINDOW_MS = 60 * 60 * 1000;

/** Whether an account created at `createdAt` (ISO timestamp) is on its first visit at `now`. */
export function isFirstVisit(createdAt: string, now: number = Date.now()): boolean {
  const created = Date.parse(createdAt);
  if (!Number.isFinite(created)) return false;
  return now - created < FIRST_VISIT_WINDOW_MS;
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

/** Display name for the card: the intent profile's, else the user's, by the one rule; never empty. */
export function feedDisplayName(item: FeedItem): string {
  return displayName(item.profile?.displayName, item.displayName);
}

/** Tagline for the intent: the profile's, the user's intent tagline, the generic one, else the default. */
export function feedTagline(item: FeedItem, intent: Intent): string {
  const info = INTENT_INFO[intent];
  return item.profile?.tagline ?? item[info.taglineField] ?? item.tagline ?? info.defaultTagline;
}

/** SPEC section 5 avatar order: the user's picture, the profile's picture, else the letter placeholder. */
/** SPEC section 5's order: the user's picture, the intent profile's, then the generated avatar. */
export function feedAvatar(item: FeedItem): string {
  return pictureSrc(pickPicture(item.profilePicture, item.profile?.profilePicture), feedDisplayName(item));
}

export function feedVideo(item: FeedItem): string | null {
  return item.profile?.videoIntroUrl ?? item.videoIntroUrl ?? null;
}
