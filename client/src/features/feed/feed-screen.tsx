import { INTENT_INFO, type Intent } from '@shared/constants';
import { displayName as displayNameOf } from '@shared/display-name';
import type { FeedItem } from '@shared/schemas/feed';
import { type CreateMatchResponse, UNDO_PASS_SECONDS } from '@shared/schemas/matches';
import { useQueryClient } from '@tanstack/react-query';
import { motion } from 'framer-motion';
import { LibraryBig, SearchX, SlidersHorizontal, TriangleAlert, Undo2 } from 'lucide-react';
import { type ReactNode, useCallback, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { Spinner } from '@/components/ui/spinner';
import { announceMatch } from '@/features/match-moment';
import { errorMessage } from '@/lib/api-client';
import { intentTextColor } from '@/lib/theme';
import { toast } from '@/lib/toast';
import { useCurrentUser, useSaveIntent, useUpdateCurrentUser } from '@/lib/user-queries';
import { type CardMotion, useCardMotion } from './card-motion';
import { FeedCard } from './feed-card';
import { FeedCoachMark, useFeedCoachMark } from './feed-coach-mark';
import { invalidateAfterMatch, type MatchActionInput, useFeed, useMatchAction, useUndoPass } from './feed-queries';
import { feedAvatar, feedDisplayName, isFirstVisit } from './feed-utils';
import { FloatingMatchCard, MATCH_ICON } from './match-card';

interface FeedScreenProps {
  displayName?: string;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

const KEYBOARD_HINT =
  'Keyboard: Arrow Up for the next profile, Arrow Down for the previous one, L or Enter to like, P or Backspace to pass, Z to undo a pass.';

/** How long "You liked ..." stays on screen after a like. */
const LIKE_FEEDBACK_MS = 2500;

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
  const guide = useFeedCoachMark(user?.id);
  const [index, setIndex] = useState(0);
  const [removed, setRemoved] = useState<ReadonlySet<number>>(() => new Set());
  const [seen, setSeen] = useState<{ data: FeedItem[] | undefined; intent: Intent }>({ data: undefined, intent });
  const [announcement, setAnnouncement] = useState('');
  // A person whose pass was undone, shown in front of the list until the feed is loaded again.
  const [front, setFront] = useState<FeedItem | null>(null);
  // The last pass, which an Undo control offers to take back for UNDO_PASS_SECONDS.
  const [lastPass, setLastPass] = useState<MatchActionInput | null>(null);
  // The last like that made no match yet, acknowledged on screen for a moment.
  const [lastLike, setLastLike] = useState<{ id: number; name: string } | null>(null);
  const cardMotion = useCardMotion();
  // The running exit animation of the card being liked or passed: its removal waits for it.
  const leaving = useRef<Promise<unknown>>(Promise.resolve());

  // New data: another intent starts at the first card; a refetch of the same intent (scores are
  // recomputed in the background) keeps the person on screen where they are in the new list.
  if (feed.data !== seen.data) {
    const before = (seen.data ?? []).filter((item) => !removed.has(item.id));
    const shownId = seen.intent === intent ? before[Math.min(index, before.length - 1)]?.id : undefined;
    const at = shownId === undefined ? -1 : (feed.data ?? []).findIndex((item) => item.id === shownId);
    setSeen({ data: feed.data, intent });
    setIndex(Math.max(0, at));
    setRemoved(new Set());
    setFront(null);
  }

  const rest = (feed.data ?? []).filter((item) => !removed.has(item.id) && item.id !== front?.id);
  const items = front && !removed.has(front.id) ? [front, ...rest] : rest;
  const current = items.length > 0 ? items[Math.min(index, items.length - 1)] : undefined;

  const onMatched = useCallback(
    (match: CreateMatchResponse, input: MatchActionInput) => {
      // The card leaves once its exit animation is over; the next one then slides in.
      void leaving.current.then(() => setRemoved((prev) => new Set(prev).add(input.item.id)));
      const name = feedDisplayName(input.item);
      setLastPass(input.liked ? null : input);
      setLastLike(input.liked && !match.isMutualMatch ? { id: input.item.id, name } : null);
      if (match.isMutualMatch) announceMatch(match);
      // Only SPEC's demo user (an instant match) opens Matches; every other like stays on the feed,
      // and a match made later arrives over the socket with its toast (realtime bridge).
      if (match.isMutualMatch && match.instantDemoMatch) navigate('/matches');
      else if (match.isMutualMatch) setAnnouncement(`It's a match with ${name}`);
      else setAnnouncement(input.liked ? `Liked ${name}` : `Passed ${name}`);
    },
    [navigate],
  );
  const matchAction = useMatchAction(onMatched);

  const onUndone = useCallback((input: MatchActionInput) => {
    setLastPass(null);
    setRemoved((prev) => {
      const next = new Set(prev);
      next.delete(input.item.id);
      return next;
    });
    setFront(input.item);
    setIndex(0);
    setAnnouncement(`${feedDisplayName(input.item)} is back`);
  }, []);
  const undoPass = useUndoPass(onUndone);

  const act = useCallback(
    (liked: boolean) => {
      if (!current || matchAction.isPending) return;
      leaving.current = cardMotion.exit(liked);
      setLastPass(null);
      matchAction.mutate(
        { item: current, liked, intent },
        // Refused: the card comes back.
        { onError: () => void leaving.current.then(() => cardMotion.back()) },
      );
    },
    [current, matchAction, intent, cardMotion],
  );

  const undo = useCallback(() => {
    if (!lastPass || undoPass.isPending || lastPass.intent !== intent) return;
    undoPass.mutate(lastPass);
  }, [lastPass, undoPass, intent]);

  useEffect(() => {
    if (!lastLike) return;
    const timer = setTimeout(() => setLastLike(null), LIKE_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [lastLike]);

  // The undo is offered for a few seconds after a pass.
  useEffect(() => {
    if (!lastPass) return;
    const timer = setTimeout(() => setLastPass(null), UNDO_PASS_SECONDS * 1000);
    return () => clearTimeout(timer);
  }, [lastPass]);

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
    // On the click, not the press: the hint going away moves what is below it, and a press that
    // moved its target before the release would click nothing (the guide's "Got it").
    // A click made with Enter or Space (detail 0) is still the keyboard.
    const onPointer = (event: MouseEvent) => {
      if (event.detail > 0) setUsingKeyboard(false);
    };
    window.addEventListener('keydown', onKeyboard);
    window.addEventListener('click', onPointer);
    return () => {
      window.removeEventListener('keydown', onKeyboard);
      window.removeEventListener('click', onPointer);
    };
  }, []);

  // The shortcuts always act on what is on screen: the handlers are refreshed before the browser
  // paints (a listener from an earlier render would still see the list before it loaded).
  const keys = useRef({ step, act, undo });
  useLayoutEffect(() => {
    keys.current = { step, act, undo };
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
      else if (key === 'z' || key === 'Z') keys.current.undo();
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
        <p className="mt-1 text-sm" style={{ color: intentTextColor(intent) }}>
          {firstVisit
            ? `Let's find your ${INTENT_INFO[intent].companion}`
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
          <kbd className="font-sans font-semibold text-white">P</kbd> pass ·{' '}
          <kbd className="font-sans font-semibold text-white">Z</kbd> undo pass
        </p>
      ) : null}
      {lastLike ? <LikeFeedback key={lastLike.id} name={lastLike.name} intent={intent} /> : null}
      {lastPass && lastPass.intent === intent ? (
        <div
          data-testid="undo-pass"
          className="-mt-2 flex items-center justify-between gap-3 rounded-2xl border border-white/10 bg-white/[0.06] py-1 pr-1 pl-4 text-sm text-zinc-200"
        >
          <span className="min-w-0 truncate">Passed {feedDisplayName(lastPass.item)}</span>
          <Button
            size="sm"
            variant="outline"
            className="min-h-11 shrink-0"
            disabled={undoPass.isPending}
            onClick={undo}
          >
            <Undo2 aria-hidden="true" className="size-4" />
            Undo
          </Button>
        </div>
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
          {guide.open ? <FeedCoachMark onDismiss={guide.dismiss} /> : null}
          {/* Keyed by person: each new card slides in; a liked or passed one is animated away first (act). */}
          <CardEntrance key={current.id} motion={cardMotion}>
            <FeedCard
              item={current}
              intent={intent}
              onDecision={(decision) => {
                if (decision === 'next') step(1);
                else if (decision === 'previous') step(-1);
                else navigate(decision === 'profile' ? '/profile' : '/matches');
              }}
              onOpenDetails={(userId) => navigate(`/profile-details/${userId}`)}
            />
          </CardEntrance>
          {/* Hidden while the guide is open (or may still open, before the person is known): it would
              cover the guide, and catch taps meant for it. */}
          {guide.open || !user ? null : (
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
          )}
        </>
      ) : (
        <EmptyFeed />
      )}
    </div>
  );
}

/** "You liked ...": a like's visible answer, for a moment (the pass has its Undo bar). */
function LikeFeedback({ name, intent }: { name: string; intent: Intent }) {
  const Icon = MATCH_ICON[intent];
  return (
    <p
      data-testid="like-feedback"
      aria-hidden="true"
      className="-mt-2 flex min-h-11 items-center gap-2 rounded-2xl bg-intent/15 px-4 text-sm font-semibold text-white motion-safe:animate-pop-in"
    >
      <Icon aria-hidden="true" className="size-4 shrink-0 text-intent" />
      <span className="min-w-0 truncate">You liked {name}</span>
    </p>
  );
}

/** The card's wrapper: it slides in when it mounts; `motion` also animates it away (act). */
function CardEntrance({ motion: cardMotion, children }: { motion: CardMotion; children: ReactNode }) {
  useLayoutEffect(() => {
    void cardMotion.enter();
  }, [cardMotion]);
  return (
    <motion.div style={cardMotion.style} data-testid="feed-card-motion">
      {children}
    </motion.div>
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
            className="h-11 w-full accent-intent"
          />
          <Button size="sm" disabled={update.isPending || value === saved} onClick={save}>
            Save minimum
          </Button>
        </div>
      ) : null}
    </FeedMessage>
  );
}
