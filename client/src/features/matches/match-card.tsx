import { displayName } from '@shared/display-name';
import type { MatchView } from '@shared/schemas/matches';
import { MessageCircle, MoreHorizontal, Star } from 'lucide-react';
import { PersonPicture } from '@/components/person-picture';
import { cn } from '@/lib/cn';
import { relativeTime } from '@/lib/relative-time';

interface MatchCardProps {
  match: MatchView;
  onOpen: () => void;
  onMessage: () => void;
  onToggleFavorite: () => void;
  onOptions: () => void;
}

/** SPEC section 5: the profile picture, else the server's letter placeholder for the name. */
export function MatchAvatar({ name, picture }: { name: string; picture: string | null }) {
  return (
    <PersonPicture
      name={name}
      picture={picture}
      lazy
      className="aspect-square w-full rounded-2xl bg-white/[0.06] object-cover"
    />
  );
}

/** Whether the match's newest message is the other person's and not read yet. */
export function hasUnreadMessage(match: MatchView): boolean {
  const last = match.lastMessage;
  return last !== null && last.senderId !== match.user1Id && match.lastMessageSeq > match.readSeq;
}

/** The newest message under the name: who wrote it, its start and when; unread ones stand out. */
function LastMessageLine({ match, unread }: { match: MatchView; unread: boolean }) {
  const last = match.lastMessage;
  if (!last) return <span className="block text-xs text-zinc-400">No messages yet</span>;
  const mine = last.senderId === match.user1Id;
  return (
    <span data-testid="match-last-message" className="grid gap-0.5 text-xs">
      <span className="flex items-start gap-1.5">
        {unread ? (
          <span data-testid="match-unread" className="mt-1 size-2 shrink-0 rounded-full bg-intent">
            <span className="sr-only">Unread message: </span>
          </span>
        ) : null}
        <span className={cn('line-clamp-2 min-w-0 break-words', unread ? 'font-semibold text-white' : 'text-zinc-300')}>
          {mine ? 'You: ' : ''}
          {last.text}
        </span>
      </span>
      <span className="text-zinc-400">{relativeTime(last.createdAt)}</span>
    </span>
  );
}

export function MatchCard({ match, onOpen, onMessage, onToggleFavorite, onOptions }: MatchCardProps) {
  const name = displayName(match.matchedUser.displayName);
  const unread = hasUnreadMessage(match);
  // "New": a match nobody has written in yet and the viewer has not opened.
  const isNew = match.hasUnreadMessages && match.lastMessage === null;
  return (
    <li
      data-testid="match-card"
      data-match-id={match.id}
      data-favorite={match.isFavorite}
      className="relative flex flex-col gap-2 rounded-3xl border border-white/10 bg-white/[0.03] p-2"
    >
      <button
        type="button"
        onClick={onOpen}
        className="flex flex-col gap-2 rounded-2xl text-left focus-visible:outline focus-visible:outline-2 focus-visible:outline-intent"
      >
        <MatchAvatar name={name} picture={match.matchedUser.profilePicture} />
        <span className="px-1">
          {/* Named by what it shows (WCAG 2.5.3: "Zoe 87% match, open profile"), then where it leads. */}
          <span className="block truncate font-semibold text-white">{name}</span>{' '}
          <span className="block text-sm text-intent-soft">{match.matchPercentage}% match</span>
          <span className="sr-only">, open profile</span>
        </span>
      </button>
      <p className="-mt-1 px-1">
        <LastMessageLine match={match} unread={unread} />
      </p>
      {isNew ? (
        <span className="pointer-events-none absolute left-4 top-4 rounded-full bg-intent px-2 py-0.5 text-xs font-bold text-white shadow">
          New
        </span>
      ) : null}
      <button
        type="button"
        onClick={onToggleFavorite}
        aria-pressed={match.isFavorite}
        aria-label={match.isFavorite ? `Remove ${name} from favourites` : `Add ${name} to favourites`}
        className="absolute right-4 top-4 grid size-11 place-items-center rounded-full bg-black/50 text-white backdrop-blur"
      >
        <Star aria-hidden="true" className={cn('size-4', match.isFavorite && 'fill-yellow-400 text-yellow-400')} />
      </button>
      <div className="flex items-center gap-1 px-1 pb-1">
        <button
          type="button"
          onClick={onMessage}
          aria-label={`Message ${name}`}
          className="flex h-11 flex-1 items-center justify-center gap-1.5 rounded-full bg-intent text-sm font-semibold text-white"
        >
          <MessageCircle aria-hidden="true" className="size-4" />
          Message
        </button>
        <button
          type="button"
          onClick={onOptions}
          aria-label={`More options for ${name}`}
          aria-haspopup="dialog"
          className="grid size-11 shrink-0 place-items-center rounded-full text-zinc-300 hover:bg-white/[0.08]"
        >
          <MoreHorizontal aria-hidden="true" className="size-5" />
        </button>
      </div>
    </li>
  );
}
