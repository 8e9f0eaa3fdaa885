import { INTENT_INFO, type Intent } from '@shared/constants';
import type { FeedItem } from '@shared/schemas/feed';
import type { MatchView } from '@shared/schemas/matches';
import { useQueryClient } from '@tanstack/react-query';
import { SearchX, TriangleAlert } from 'lucide-react';
import { type ReactNode, useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/lib/toast';
import { useCurrentUser, useUpdateCurrentUser } from '@/lib/user-queries';
import { FeedCard } from './feed-card';
import { invalidateAfterMatch, type MatchActionInput, useFeed, useMatchAction } from './feed-queries';
import { feedAvatar, feedDisplayName } from './feed-utils';
import { FloatingMatchCard } from './match-card';
import { announceMutualMatch } from './mutual-match-toast';

interface FeedScreenProps {
  displayName?: string;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

const KEYBOARD_HINT =
  'Keyboard: Arrow Up for the next profile, Arrow Down for the previous one, L or Enter to like, P or Backspace to pass.';

/** Step by which the empty state lowers the minimum match percentage. */
const MIN_MATCH_STEP = 10;

function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A', 'SUMMARY'].includes(target.tagName);
}

/** The feed (/): intent switcher, one card at a time, the floating match card (SPEC section 2). */
export function FeedScreen({ displayName, intent, onIntentChange }: FeedScreenProps) {
  const feed = useFeed(intent);
  const navigate = useNavigate();
  const [index, setIndex] = useState(0);
  const [removed, setRemoved] = useState<ReadonlySet<number>>(() => new Set());
  const [seenData, setSeenData] = useState<FeedItem[] | undefined>(undefined);
  const [announcement, setAnnouncement] = useState('');

  // New data (another intent, a refetch) starts again at the first card.
  if (feed.data !== seenData) {
    setSeenData(feed.data);
    setIndex(0);
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

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (isTypingTarget(event.target)) return;
      const key = event.key;
      if (key === 'ArrowUp') step(1);
      else if (key === 'ArrowDown') step(-1);
      else if (key === 'l' || key === 'L' || key === 'Enter') act(true);
      else if (key === 'p' || key === 'P' || key === 'Backspace') act(false);
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [step, act]);

  const onMessage = useCallback(() => {
    toast({ title: 'Match first', description: 'You can message each other once you both like each other.' });
  }, []);

  return (
    <div className="grid gap-5 pb-8">
      <IntentSwitcher value={intent} onChange={onIntentChange} />
      <header>
        <p className="text-sm text-zinc-400">Welcome back,</p>
        <h1 data-testid="user-display-name" className="text-3xl font-bold tracking-tight text-white">
          {displayName ?? '\u00a0'}
        </h1>
        <p className="mt-1 text-sm" style={{ color: INTENT_INFO[intent].color }}>
          Looking for your next {INTENT_INFO[intent].companion}
        </p>
      </header>
      <p className="sr-only" aria-live="polite">
        {current ? `${KEYBOARD_HINT} ${announcement}` : announcement}
      </p>

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

function EmptyFeed() {
  const user = useCurrentUser();
  const update = useUpdateCurrentUser();
  const queryClient = useQueryClient();
  const min = user?.matchPreferences.minMatchPercentage ?? 0;
  const lower = Math.max(0, min - MIN_MATCH_STEP);
  return (
    <FeedMessage icon={<SearchX className="size-8 text-zinc-400" aria-hidden="true" />} title="Well, this is awkward.">
      <p>You're out of options for now. Try lowering your minimum match percentage to see more people.</p>
      {min > 0 ? (
        <>
          <p className="mt-2">Your minimum match is {min}%.</p>
          <Button
            size="sm"
            className="mt-4"
            disabled={update.isPending}
            onClick={() =>
              update.mutate(
                { matchPreferences: { minMatchPercentage: lower } },
                {
                  onSuccess: (saved) => void invalidateAfterMatch(queryClient, saved.id),
                  onError: (error) =>
                    toast({
                      variant: 'destructive',
                      title: 'Error updating profile',
                      description: errorMessage(error, 'Failed to update profile'),
                    }),
                },
              )
            }
          >
            Lower minimum to {lower}%
          </Button>
        </>
      ) : (
        <p className="mt-2">Add more podcasts to your profile to find more people.</p>
      )}
    </FeedMessage>
  );
}
