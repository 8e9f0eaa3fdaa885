import { ArrowDown, ArrowLeft, ArrowRight, ArrowUp, Hand } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Button } from '@/components/ui/button';

/** Per person, so a second account on the same browser is taught too. */
export function coachMarkStorageKey(userId: number): string {
  return `podmatch.feed-coach-mark.${userId}`;
}

function wasShown(userId: number): boolean {
  try {
    return globalThis.localStorage?.getItem(coachMarkStorageKey(userId)) === 'done';
  } catch {
    return false;
  }
}

function markShown(userId: number): void {
  try {
    globalThis.localStorage?.setItem(coachMarkStorageKey(userId), 'done');
  } catch {
    // best effort: at worst it shows once more
  }
}

const GESTURES = [
  { icon: ArrowUp, text: 'Swipe up for the next person' },
  { icon: ArrowDown, text: 'Swipe down to go back' },
  { icon: ArrowRight, text: 'Drag right for your profile' },
  { icon: ArrowLeft, text: 'Drag left for your matches' },
] as const;

/**
 * Whether the one-time guide is open for this person, and its dismissal (remembered on this browser).
 * The feed hides the action buttons while it is open, so they never cover it and a tap meant for it
 * never likes anyone.
 */
export function useFeedCoachMark(userId: number | undefined): { open: boolean; dismiss: () => void } {
  const [dismissed, setDismissed] = useState<number | null>(null);
  const open = userId !== undefined && dismissed !== userId && !wasShown(userId);
  const dismiss = useCallback(() => {
    if (userId === undefined) return;
    markShown(userId);
    setDismissed(userId);
  }, [userId]);
  return { open, dismiss };
}

/**
 * A one-time note above the first card that teaches the feed's gestures (the vertical swipes and
 * the side hints). Shown inline, never over the card, so it blocks nothing.
 */
export function FeedCoachMark({ onDismiss }: { onDismiss: () => void }) {
  return (
    <section
      data-testid="feed-coach-mark"
      aria-labelledby="feed-coach-mark-title"
      className="grid gap-3 rounded-2xl border border-white/15 bg-white/[0.06] p-4 text-sm text-zinc-200"
    >
      <h2 id="feed-coach-mark-title" className="flex items-center gap-2 font-semibold text-white">
        <Hand aria-hidden="true" className="size-4" />
        How the feed works
      </h2>
      <ul className="grid grid-cols-1 gap-x-3 gap-y-1.5 min-[360px]:grid-cols-2">
        {GESTURES.map(({ icon: Icon, text }) => (
          <li key={text} className="flex items-center gap-2">
            <Icon aria-hidden="true" className="size-4 shrink-0 text-white" />
            {text}
          </li>
        ))}
      </ul>
      <p>Like or pass with the buttons beside the card; tap a name to see their profile.</p>
      <Button size="sm" variant="outline" className="min-h-11 justify-self-end" onClick={onDismiss}>
        Got it
      </Button>
    </section>
  );
}
