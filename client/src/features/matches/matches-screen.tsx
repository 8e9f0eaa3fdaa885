import type { Intent } from '@shared/constants';
import { displayName } from '@shared/display-name';
import type { MatchView, ReportReason } from '@shared/schemas/matches';
import { Compass, HeartHandshake } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { errorMessage } from '@/lib/api-client';
import { toast } from '@/lib/toast';
import { MatchCard } from './match-card';
import { MatchOptionsDialog } from './match-options-dialog';
import { useBlockUser, useMarkSeen, useMatches, useReportUser, useToggleFavorite, useUnmatch } from './match-queries';
import { useSwipeRight } from './use-swipe-right';

interface MatchesScreenProps {
  userId: number;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
}

const GRID = 'grid grid-cols-2 gap-3 md:grid-cols-3 lg:grid-cols-4';

function SkeletonSection({ title, count }: { title: string; count: number }) {
  return (
    <section aria-busy="true" className="grid gap-3">
      <h2 className="text-lg font-semibold text-zinc-300">{title}</h2>
      <div className={GRID}>
        {Array.from({ length: count }, (_, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: static skeleton tiles
            key={i}
            data-testid="match-skeleton"
            className="flex animate-pulse flex-col gap-2 rounded-3xl border border-white/5 p-2"
          >
            <div className="aspect-square rounded-2xl bg-white/[0.06]" />
            <div className="h-4 w-2/3 rounded bg-white/[0.06]" />
            <div className="h-3 w-1/3 rounded bg-white/[0.06]" />
          </div>
        ))}
      </div>
    </section>
  );
}

function EmptyState() {
  const navigate = useNavigate();
  return (
    <div data-testid="matches-empty" className="grid justify-items-center gap-3 py-16 text-center">
      <HeartHandshake aria-hidden="true" className="size-12 text-intent" />
      <h2 className="text-xl font-semibold text-white">No matches yet</h2>
      <p className="max-w-sm text-sm text-zinc-400">
        Start swiping on profiles in the feed to find podcast matches that share your interests.
      </p>
      <Button className="mt-2" onClick={() => navigate('/')}>
        <Compass aria-hidden="true" className="size-4" />
        Go to the feed
      </Button>
    </div>
  );
}

/** Matches (/matches), SPEC section 2: the mutual matches of the current intent. */
export function MatchesScreen({ userId, intent, onIntentChange }: MatchesScreenProps) {
  const navigate = useNavigate();
  const matches = useMatches(userId, intent);
  const favorite = useToggleFavorite(userId, intent);
  const markSeen = useMarkSeen(userId);
  const unmatch = useUnmatch(userId);
  const block = useBlockUser(userId);
  const report = useReportUser();
  const [optionsFor, setOptionsFor] = useState<MatchView | null>(null);
  const swipe = useSwipeRight(() => navigate('/'));

  // Live updates come through the cache (the realtime bridge): a match removed meanwhile closes its dialog.
  const optionsMatch = optionsFor && matches.data?.some((m) => m.id === optionsFor.id) ? optionsFor : null;

  const seen = (match: MatchView) => {
    if (match.hasUnreadMessages) markSeen.mutate(match.id);
  };
  const open = (match: MatchView) => {
    seen(match);
    navigate(`/profile-details/${match.matchedUser.id}/${match.id}`);
  };
  const message = (match: MatchView) => {
    seen(match);
    navigate(`/chat/${match.id}`);
  };
  const toggleFavorite = (match: MatchView) => {
    favorite.mutate(
      { matchId: match.id, isFavorite: !match.isFavorite },
      {
        onError: (error) =>
          toast({
            variant: 'destructive',
            title: 'Could not update favourite',
            description: errorMessage(error, 'Please try again.'),
          }),
      },
    );
  };

  const failed = (title: string) => (error: unknown) =>
    toast({ variant: 'destructive', title, description: errorMessage(error, 'Please try again.') });

  const onUnmatch = (match: MatchView) =>
    unmatch.mutate(match.id, {
      onSuccess: () => {
        setOptionsFor(null);
        toast({
          title: 'Unmatched',
          description: `You are no longer matched with ${displayName(match.matchedUser.displayName)}.`,
        });
      },
      onError: failed('Could not unmatch'),
    });
  const onBlock = (match: MatchView) =>
    block.mutate(match.matchedUser.id, {
      onSuccess: () => {
        setOptionsFor(null);
        toast({ title: 'User blocked', description: `${displayName(match.matchedUser.displayName)} is blocked.` });
      },
      onError: failed('Could not block'),
    });
  const onReport = (match: MatchView, reason: ReportReason, details: string) =>
    report.mutate(
      { reportedId: match.matchedUser.id, matchId: match.id, reason, ...(details ? { details } : {}) },
      {
        onSuccess: () => {
          setOptionsFor(null);
          toast({ title: 'Report sent', description: 'Thank you. Our team will review it.' });
        },
        onError: failed('Could not send report'),
      },
    );

  let content: ReactNode;
  if (matches.isPending) {
    content = (
      <div data-testid="matches-loading" className="grid gap-8">
        <SkeletonSection title="New Matches" count={4} />
        <SkeletonSection title="Conversations" count={4} />
      </div>
    );
  } else if (matches.isError) {
    content = (
      <div role="alert" className="grid justify-items-center gap-3 py-16 text-center">
        <p className="text-zinc-300">{errorMessage(matches.error, 'Could not load your matches.')}</p>
        <Button variant="outline" onClick={() => void matches.refetch()}>
          Try again
        </Button>
      </div>
    );
  } else if (matches.data.length === 0) {
    content = <EmptyState />;
  } else {
    content = (
      <ul aria-label="Your matches" className={GRID}>
        {matches.data.map((match) => (
          <MatchCard
            key={match.id}
            match={match}
            onOpen={() => open(match)}
            onMessage={() => message(match)}
            onToggleFavorite={() => toggleFavorite(match)}
            onOptions={() => setOptionsFor(match)}
          />
        ))}
      </ul>
    );
  }

  return (
    <>
      <div
        data-testid="matches-screen"
        {...swipe.handlers}
        style={{ touchAction: 'pan-y', transform: swipe.offset ? `translateX(${swipe.offset}px)` : undefined }}
        // A swipe surface: text selection would start native drags that cancel the swipe.
        className="grid min-h-[60vh] select-none content-start gap-6"
      >
        <IntentSwitcher value={intent} onChange={onIntentChange} />
        <h1 className="text-3xl font-bold tracking-tight text-white">Matches</h1>
        {content}
      </div>
      {optionsMatch ? (
        <MatchOptionsDialog
          key={optionsMatch.id}
          name={displayName(optionsMatch.matchedUser.displayName)}
          busy={unmatch.isPending || block.isPending || report.isPending}
          onClose={() => setOptionsFor(null)}
          onUnmatch={() => onUnmatch(optionsMatch)}
          onBlock={() => onBlock(optionsMatch)}
          onReport={(reason, details) => onReport(optionsMatch, reason, details)}
        />
      ) : null}
    </>
  );
}
