import { INTENT_INFO } from '@shared/constants';
import { displayName } from '@shared/display-name';
import type { MatchView } from '@shared/schemas/matches';
import { atom, useAtomValue } from 'jotai';
import { MessageCircle } from 'lucide-react';
import { type KeyboardEvent, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import { useNavigate } from 'react-router-dom';
import { PersonPicture } from '@/components/person-picture';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { Button } from '@/components/ui/button';
import { NotificationsPrompt } from '@/features/notifications';
import { handleModalKeys } from '@/lib/modal-keys';
import { appStore } from '@/lib/store';
import { useCurrentUser } from '@/lib/user-queries';

/** The matches waiting to be shown, oldest first: one moment at a time. */
const momentsAtom = atom<MatchView[]>([]);

// Match ids already announced in this tab: the like's answer and the 'match:new' event both
// report the same match, and its moment shows once.
const announced = new Set<number>();

/** Shows the moment of a new mutual match, once per match id in this tab; true if it will show. */
export function announceMatch(match: MatchView): boolean {
  if (!match.isMutualMatch || announced.has(match.id)) return false;
  announced.add(match.id);
  appStore.set(momentsAtom, (queue) => [...queue, match]);
  return true;
}

/** Tests only: forgets the announced ids and the queue. */
export function resetAnnouncedMatches(): void {
  announced.clear();
  appStore.set(momentsAtom, []);
}

/** The matches whose moment is still to be shown or dismissed. */
export const pendingMatchMoments = (): readonly MatchView[] => appStore.get(momentsAtom);

/** The moment waiting in front, if any. */
export function useMatchMoment(): MatchView | undefined {
  return useAtomValue(momentsAtom, { store: appStore })[0];
}

const dismiss = (matchId: number) => appStore.set(momentsAtom, (queue) => queue.filter((m) => m.id !== matchId));

/** Shown in front of whatever screen is open (mounted with the realtime bridge). */
export function MatchMomentHost() {
  const match = useMatchMoment();
  return match ? createPortal(<MatchMoment key={match.id} match={match} />, document.body) : null;
}

/** How many shared shows the moment names. */
const SHOWN_SHOWS = 3;

/**
 * "It's a match": both faces, the other person's name and the shows the two share, then "Send a
 * message" (the chat, with an icebreaker in the input) or "Keep browsing". A modal of its own:
 * labelled, focus on its first action and kept inside, Escape keeps browsing.
 */
function MatchMoment({ match }: { match: MatchView }) {
  const navigate = useNavigate();
  const me = useCurrentUser();
  const panel = useRef<HTMLDivElement>(null);
  const send = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const textId = useId();
  const name = displayName(match.matchedUser.displayName);
  const myName = displayName(me?.displayName, me?.username);
  const info = INTENT_INFO[match.intent];
  const shows = match.sharedPodcasts.slice(0, SHOWN_SHOWS);
  const more = match.sharedPodcastCount - shows.length;

  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    send.current?.focus();
    return () => opener?.focus?.();
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) =>
    handleModalKeys(event, panel.current, () => dismiss(match.id));

  return (
    <div
      ref={panel}
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      aria-describedby={textId}
      data-testid="match-moment"
      onKeyDown={onKeyDown}
      className="fixed inset-0 z-50 overflow-y-auto bg-zinc-950/95 backdrop-blur"
    >
      <div className="mx-auto motion-safe:animate-pop-in flex min-h-full max-w-md flex-col items-center justify-center gap-6 px-6 py-10 text-center">
        <div className="flex items-center justify-center" aria-hidden="true">
          {[
            { who: myName, picture: me?.profilePicture, tilt: '-rotate-6 translate-x-3' },
            { who: name, picture: match.matchedUser.profilePicture, tilt: 'rotate-6 -translate-x-3' },
          ].map(({ who, picture, tilt }) => (
            <PersonPicture
              key={tilt}
              name={who}
              picture={picture}
              className={`size-32 rounded-full border-4 border-white object-cover shadow-2xl ${tilt}`}
            />
          ))}
        </div>
        <div className="grid gap-2">
          <h2 id={titleId} className="text-4xl font-extrabold tracking-tight text-white">
            It's a match!
          </h2>
          <p className="text-sm font-semibold text-intent-soft">{info.mutualMatchTitle}</p>
          <p id={textId} data-testid="match-moment-text" className="text-base text-zinc-200">
            You and <strong className="break-words text-white">{name}</strong> like each other.
          </p>
        </div>
        {shows.length > 0 ? (
          <section aria-label="Shows you share" className="grid w-full gap-2">
            <h3 className="text-xs font-semibold tracking-wide text-zinc-400 uppercase">You both listen to</h3>
            <ul className="grid gap-2">
              {shows.map((show) => (
                <li
                  key={show.id}
                  className="flex items-center gap-3 rounded-2xl bg-white/[0.06] p-2 text-left text-sm text-white"
                >
                  <PodcastArtwork name={show.name} imageUrl={show.imageUrl} className="size-10 shrink-0 rounded-lg" />
                  <span className="min-w-0 break-words">{show.name}</span>
                </li>
              ))}
            </ul>
            {more > 0 ? <p className="text-xs text-zinc-400">and {more} more</p> : null}
          </section>
        ) : null}
        <div className="grid w-full gap-3">
          <Button
            ref={send}
            className="min-h-12 w-full"
            onClick={() => {
              dismiss(match.id);
              navigate(`/chat/${match.id}?icebreaker=1`);
            }}
          >
            <MessageCircle aria-hidden="true" className="size-4" />
            Send a message
          </Button>
          <Button variant="outline" className="min-h-12 w-full" onClick={() => dismiss(match.id)}>
            Keep browsing
          </Button>
        </div>
        {/* Once per account on this browser, where push could work (docs/notifications.md). */}
        {me ? <NotificationsPrompt userId={me.id} name={name} /> : null}
      </div>
    </div>
  );
}
