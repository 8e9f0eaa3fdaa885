import type { MatchView } from '@shared/schemas/matches';
import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router-dom';
import { PersonPicture } from '@/components/person-picture';
import { buttonClasses } from '@/components/ui/button';
import { cn } from '@/lib/cn';

/** The profile picture, else the server's letter placeholder for the name (SPEC section 5). */
function ChatAvatar({ name, picture, online }: { name: string; picture: string | null; online: boolean | undefined }) {
  return (
    <span className="relative shrink-0">
      <PersonPicture name={name} picture={picture} className="size-11 rounded-full bg-white/[0.06] object-cover" />
      {online ? (
        <span
          aria-hidden="true"
          className="absolute right-0 bottom-0 size-3 rounded-full bg-emerald-400 ring-2 ring-ink"
        />
      ) : null}
    </span>
  );
}

interface ChatHeaderProps {
  match: MatchView;
  /** The other person's presence; undefined while not known. */
  online: boolean | undefined;
}

/** Back to Matches, who this is, how well you match and whether they are online (SPEC section 2). */
export function ChatHeader({ match, online }: ChatHeaderProps) {
  const name = match.matchedUser.displayName;
  return (
    <header className="flex items-center gap-3 border-b border-white/10 px-3 py-3">
      <Link to="/matches" aria-label="Back to Matches" className={buttonClasses('ghost', 'icon', 'shrink-0')}>
        <ArrowLeft aria-hidden="true" className="size-5" />
      </Link>
      <ChatAvatar name={name} picture={match.matchedUser.profilePicture} online={online} />
      <div className="min-w-0">
        <h1 className="truncate text-base font-semibold text-white" data-testid="chat-name">
          {name}
        </h1>
        <p className="flex items-center gap-2 text-xs">
          <span className="text-intent-soft">{match.matchPercentage}% match</span>
          {online === undefined ? null : (
            <span data-testid="presence" data-online={online} className="flex items-center gap-1 text-zinc-400">
              <span
                aria-hidden="true"
                className={cn('size-2 rounded-full', online ? 'bg-emerald-400' : 'bg-zinc-600')}
              />
              {online ? 'Online' : 'Offline'}
            </span>
          )}
        </p>
      </div>
    </header>
  );
}
