import { INTENT_INFO, type Intent } from '@shared/constants';
import { displayName as displayNameOf } from '@shared/display-name';
import type { FeedItem } from '@shared/schemas/feed';
import type { MatchView } from '@shared/schemas/matches';
import { useQueryClient } from '@tanstack/react-query';
import { LibraryBig, SearchX, SlidersHorizontal, TriangleAlert } from 'lucide-react';
import { type ReactNode, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/lib/toast';
import { useCurrentUser, useSaveIntent, useUpdateCurrentUser } from '@/lib/user-queries';
import { FeedCard } from './feed-card';
import { invalidateAfterMatch, type MatchActionInput, useFeed, useMatchAction } from './feed-queries';
import { feedAvatar, feedDisplayName, isFirstVisit } from './feed-utils';
import { FloatingMatchCard } from './match-card';
import { announceMutualMatch } from './mutual-match-toast';

interface FeedScreenProps {
  displayName?: string;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

const KEYBOARD_HINT =
  'Keyboard: Arrow Up for the next profile, Arrow Down for the previous one, L or Enter to like, P or Backspace to pass.';

/** Step of the empty state's minimum match percentage control. */
const MIN_MATCH_STEP = 5;

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A', 'SUMMARY'].includes(target.tagName);
}

/** The feed (/): intent switcher, one card at a time, the floating match card (SPEC section 2). */
export function FeedScreen({ displayName, intent, onIntentChange }: FeedScreenProps) {
  const feed = useFeed(intent);
  const navigate = useNavigate();
  const user = useCurrentUser();
  // The intent in view is saved on the server too, so it survives a reload (issue 10).
  const { save: changeIntent } = useSaveIntent(onIntentChange);
  // The route's name, else the loaded user's, by the one display-name rule (the username last).
  const greetingName =
    displayName !== undefined || user ? displayNameOf(displayName, user?.displayName, user?.username) : '';
  const firstVisit = user ? isFirstVisit(user.createdAt) : false;
  const [index, setIndex] = useState(0);
  const [removed, setRemoved] = useState<ReadonlySet<number>>(() => new Set());
  const [seen, setSeen] = useState<{ data: FeedItem[] | undefined; intent: Intent }>({ data: undefined, intent });
  const [announcement, setAnnouncement] = useState('');

  // New data: another intent starts at the first card; a refetch of the same intent (scores are
  // recomputed in the background) keeps the person on screen where they are in the new list.
  if (feed.data !== seen.data) {
    const before = (seen.data ?? []).filter((item) => !removed.has(item.id));
    const shownId = seen.intent === intent ? before[Math.min(index, before.length - 1)]?.id : undefined;
    const at = shownId === undefined ? -1 : (feed.data ?? []).findIndex((item) => item.id === shownId);
    setSeen({ data: feed.data, intent });
    setIndex(Math.max(0, at));
    setRemoved(new Set());
  }

  const items = (feed.data ?? []).filter((item) => !removed.has(item.id));
  const current = items.length > 0 ? items[Math.min(index, items.length - 1)] : undefined;

  const onMatched = useCallback(
    (match: MatchView, input: MatchActionInput) => {
      setRemoved((prev) => new Set(prev).add(input.item.id));
      if (match.isMutualMatch) {
        announceMutualMatch(match);
        // Every mutual match made from the feed (demo people are mutual at once) opens Matches.
        navigate('/matches');
      } else {
        setAnnouncement(input.liked ? `Liked ${feedDisplayName(input.item)}` : `Passed ${feedDisplayName(input.item)}`);
      }
    },
    [navigate],
  );
  const matchAction = useMatchAction(onMatched);

  const act = useCallback(
    (liked: boolean) => {
      if (!current || matchAction.isPending) return;
      matchAction.mutate({ item: current, liked, intent });
    },
    [current, matchAction, intent],
  );

  const step = useCallback(
    (delta: 1 | -1) => {
      if (items.length === 0) return;
      setIndex((i) => {
        const at = Math.min(i, items.length - 1);
        return (at + delta + items.length) % items.length;
      });
    },
    [items.length],
  );

  // Sighted keyboard users see the shortcuts once they use the keyboard; a pointer hides them again.
  const [usingKeyboard, setUsingKeyboard] = useState(false);
  useEffect(() => {
    const onKeyboard = (event: KeyboardEvent) => {
      if (event.key === 'Tab' || event.key.startsWith('Arrow')) setUsingKeyboard(true);
    };
    const onPointer = () => setUsingKeyboard(false);
    window.addEventListener('keydown', onKeyboard);
    window.addEventListener('pointerdown', onPointer);
    return () => {
      window.removeEventListener('keydown', onKeyboard);
      window.removeEventListener('pointerdown', onPointer);
    };
  }, []);

  // The shortcuts always act on what is on screen: the handlers are refreshed before the browser
  // paints (a listener from an earlier render would still see the list before it loaded).
  const keys = useRef({ step, act });
  useLayoutEffect(() => {
    keys.current = { step, act };
  });
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (isTypingTarget(event.target)) return;
      const key = event.key;
      if (key === 'ArrowUp') keys.current.step(1);
      else if (key === 'ArrowDown') keys.current.step(-1);
      else if (key === 'l' || key === 'L' || key === 'Enter') keys.current.act(true);
      else if (key === 'p' || key === 'P' || key === 'Backspace') keys.current.act(false);
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onMessage = useCallback(() => {
    toast({ title: 'Match first', description: 'You can message each other once you both like each other.' });
  }, []);

  return (
    <div className="grid gap-5 pb-8">
      <IntentSwitcher value={intent} onChange={changeIntent} />
      <header>
        <p data-testid="feed-greeting" className="text-sm text-zinc-400">
          {firstVisit ? 'Welcome,' : 'Welcome back,'}
        </p>
        <h1 data-testid="user-display-name" className="text-3xl font-bold tracking-tight text-white">
          {greetingName || '\u00a0'}
        </h1>
        <p className="mt-1 text-sm" style={{ color: INTENT_INFO[intent].color }}>
          {firstVisit
            ? `Let's find your first ${INTENT_INFO[intent].companion}`
            : `Looking for your next ${INTENT_INFO[intent].companion}`}
        </p>
      </header>
      <p className="sr-only" aria-live="polite">
        {current ? `${KEYBOARD_HINT} ${announcement}` : announcement}
      </p>
      {usingKeyboard && current ? (
        <p data-testid="keyboard-hint" aria-hidden="true" className="-mt-2 text-xs text-zinc-300">
          <kbd className="font-sans font-semibold text-white">↑</kbd> next ·{' '}
          <kbd className="font-sans font-semibold text-white">↓</kbd> previous ·{' '}
          <kbd className="font-sans font-semibold text-white">L</kbd> like ·{' '}
          <kbd className="font-sans font-semibold text-white">P</kbd> pass
        </p>
      ) : null}

      {feed.isPending ? (
        <div className="flex justify-center py-16" role="status" aria-label="Loading profiles">
          <Spinner className="size-8 text-zinc-400" />
        </div>
      ) : feed.isError ? (
        <FeedMessage
          icon={<TriangleAlert className="size-8 text-red-400" aria-hidden="true" />}
          title="Oops, something went wrong"
        >
          <p>{errorMessage(feed.error, 'Failed to load profiles. Please try again.')}</p>
          <Button variant="outline" size="sm" className="mt-4" onClick={() => void feed.refetch()}>
            Try again
          </Button>
        </FeedMessage>
      ) : current ? (
        <>
          <FeedCard
            key={current.id}
            item={current}
            intent={intent}
            onDecision={(decision) => {
              if (decision === 'next') step(1);
              else if (decision === 'previous') step(-1);
              else navigate(decision === 'profile' ? '/profile' : '/matches');
            }}
            onOpenDetails={(userId) => navigate(`/profile-details/${userId}`)}
          />
          <FloatingMatchCard
            userId={current.id}
            name={feedDisplayName(current)}
            avatarUrl={feedAvatar(current)}
            matchPercentage={current.matchPercentage}
            intent={intent}
            disabled={matchAction.isPending}
            onMatch={(_userId, liked) => act(liked)}
            onMessage={onMessage}
          />
        </>
      ) : (
        <EmptyFeed />
      )}
    </div>
  );
}

function FeedMessage({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <section className="grid justify-items-center gap-2 rounded-3xl border border-white/10 bg-white/[0.04] px-6 py-12 text-center text-zinc-300">
      {icon}
      <h2 className="text-xl font-bold text-white">{title}</h2>
      <div className="text-sm">{children}</div>
    </section>
  );
}

/**
 * SPEC empty state, plus two ways out: add podcasts (the library and search live on /profile),
 * and the minimum match percentage, adjusted inline (no other screen offers it yet).
 */
function EmptyFeed() {
  const navigate = useNavigate();
  const user = useCurrentUser();
  const update = useUpdateCurrentUser();
  const queryClient = useQueryClient();
  const saved = user?.matchPreferences.minMatchPercentage ?? 0;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<number | null>(null);
  const value = draft ?? saved;
  const sliderId = useId();
  const panelId = useId();

  const save = () =>
    update.mutate(
      { matchPreferences: { minMatchPercentage: value } },
      {
        onSuccess: (next) => {
          setDraft(null);
          setEditing(false);
          toast({
            title: 'Minimum match updated',
            description: `You now see people from ${next.matchPreferences.minMatchPercentage}% match.`,
          });
          void invalidateAfterMatch(queryClient, next.id);
        },
        onError: (error) =>
          toast({
            variant: 'destructive',
            title: 'Error updating profile',
            description: errorMessage(error, 'Failed to update profile'),
          }),
      },
    );

  return (
    <FeedMessage icon={<SearchX className="size-8 text-zinc-400" aria-hidden="true" />} title="Well, this is awkward.">
      <p>You're out of options for now. Add podcasts you listen to, or adjust your minimum match percentage.</p>
      <p className="mt-2" data-testid="min-match-current">
        Your minimum match is {saved}%.
      </p>
      <div className="mt-4 flex flex-wrap justify-center gap-2">
        <Button size="sm" onClick={() => navigate('/profile')}>
          <LibraryBig aria-hidden="true" className="size-4" />
          Add podcasts
        </Button>
        <Button
          size="sm"
          variant="outline"
          aria-expanded={editing}
          aria-controls={panelId}
          onClick={() => setEditing((open) => !open)}
        >
          <SlidersHorizontal aria-hidden="true" className="size-4" />
          Adjust minimum match
        </Button>
      </div>
      {editing ? (
        <div id={panelId} className="mt-4 grid gap-2 text-left">
          <div className="flex justify-between text-sm text-zinc-300">
            <label htmlFor={sliderId}>Minimum match percentage</label>
            <output htmlFor={sliderId} className="font-semibold text-white">
              {value}%
            </output>
          </div>
          <input
            id={sliderId}
            type="range"
            min={0}
            max={100}
            step={MIN_MATCH_STEP}
            value={value}
            onChange={(event) => setDraft(Number(event.target.value))}
            className="w-full accent-intent"
          />
          <Button size="sm" disabled={update.isPending || value === saved} onClick={save}>
            Save minimum
          </Button>
        </div>
      ) : null}
    </FeedMessage>
  );
}
