import { INTENT_INFO, type Intent } from '@shared/constants';
import { Heart, MessageCircle, Paperclip, ThumbsUp, X } from 'lucide-react';
import { MatchRing } from '@/components/match-ring';
import { cn } from '@/lib/cn';

interface FloatingMatchCardProps {
  userId: number;
  name: string;
  avatarUrl: string;
  matchPercentage: number;
  intent: Intent;
  disabled?: boolean;
  onMatch: (userId: number, liked: boolean) => void;
  onMessage?: (userId: number) => void;
}

/** The like button's icon per intent (also the like's feedback on the feed). */
export const MATCH_ICON = { professional: Paperclip, platonic: ThumbsUp, romantic: Heart } as const;

// Sizes in px, not rem: the icon buttons keep their 44 px when the text is made larger (200 %), so
// the column stays beside the card instead of growing over its text.
const roundButton =
  'flex size-[44px] items-center justify-center rounded-full border border-white/15 bg-black/50 text-white shadow-lg backdrop-blur transition hover:scale-105 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-white';

/** SPEC section 2: fixed at the right edge, vertically centred; ring, badge, match/pass/message. */
export function FloatingMatchCard({
  userId,
  name,
  avatarUrl,
  matchPercentage,
  intent,
  disabled,
  onMatch,
  onMessage,
}: FloatingMatchCardProps) {
  const color = INTENT_INFO[intent].color;
  const MatchIcon = MATCH_ICON[intent];
  return (
    <aside
      aria-label="Match actions"
      className="fixed right-[12px] top-1/2 z-20 flex -translate-y-1/2 flex-col items-center gap-[12px] rounded-[24px] bg-black/30 p-[8px] backdrop-blur"
    >
      {/* Keyed by person: every new card starts its ring and badge again from 0. */}
      <MatchRing key={userId} matchPercentage={matchPercentage} avatarUrl={avatarUrl} name={name} color={color} />
      <button
        type="button"
        aria-label="Like"
        disabled={disabled}
        onClick={() => onMatch(userId, true)}
        className={roundButton}
        style={{ backgroundColor: color }}
      >
        <MatchIcon aria-hidden="true" className="size-5" data-icon={intent} />
      </button>
      <button
        type="button"
        aria-label="Pass"
        disabled={disabled}
        onClick={() => onMatch(userId, false)}
        className={roundButton}
      >
        <X aria-hidden="true" className="size-5" />
      </button>
      {onMessage ? (
        <button
          type="button"
          aria-label="Message"
          disabled={disabled}
          onClick={() => onMessage(userId)}
          className={cn(roundButton)}
        >
          <MessageCircle aria-hidden="true" className="size-5" />
        </button>
      ) : null}
    </aside>
  );
}
