import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import type { FeedItem } from '@shared/schemas/feed';
import type { CreateMatchResponse } from '@shared/schemas/matches';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { useEffect, useRef } from 'react';
import { apiRequest, endpointQuery, errorMessage } from '@/lib/api-client';
import { setFeedBadges } from '@/lib/badges';
import { sessionAtom } from '@/lib/session';
import { toast } from '@/lib/toast';

export function feedQuery(userId: number, intent: Intent) {
  return endpointQuery(api.feed, { params: { userId }, query: { intent } });
}

export function feedCountsQuery(userId: number) {
  return endpointQuery(api.feedCounts, { params: { userId } });
}

/** The feed for the intent, and the per-intent counts (mirrored into the bottom-nav badges). */
export function useFeed(intent: Intent) {
  const session = useAtomValue(sessionAtom);
  const userId = session?.userId ?? 0;
  const feed = useQuery({ ...feedQuery(userId, intent), enabled: session !== null });
  const counts = useQuery({ ...feedCountsQuery(userId), enabled: session !== null });
  const queryClient = useQueryClient();

  // A new intent refetches the counts as well (the feed refetches through its key).
  const lastIntent = useRef(intent);
  useEffect(() => {
    if (lastIntent.current === intent || session === null) return;
    lastIntent.current = intent;
    void queryClient.invalidateQueries({ queryKey: feedCountsQuery(session.userId).queryKey });
  }, [intent, session, queryClient]);

  useEffect(() => {
    if (counts.data) setFeedBadges(queryClient, userId, counts.data);
  }, [counts.data, queryClient, userId]);

  return feed;
}

/** The feed lists of every intent and their counts (after the person's feed was computed again). */
export function invalidateFeed(queryClient: ReturnType<typeof useQueryClient>, userId: number) {
  return queryClient.invalidateQueries({
    predicate: ({ queryKey: [key] }) => typeof key === 'string' && key.startsWith(`/api/users/${userId}/feed`),
  });
}

/**
 * Queries a match changes: the feed counts, every matches list of the user and, unless `feed` is
 * false, the feed lists too (a like or pass keeps the current list, so the position stays).
 */
export function invalidateAfterMatch(
  queryClient: ReturnType<typeof useQueryClient>,
  userId: number,
  { feed = true }: { feed?: boolean } = {},
) {
  return queryClient.invalidateQueries({
    predicate: (query) => {
      const key = query.queryKey[0];
      return (
        typeof key === 'string' &&
        (key.startsWith(`/api/users/${userId}/feed-counts`) ||
          (feed && key.startsWith(`/api/users/${userId}/feed`)) ||
          key.startsWith(`/api/users/${userId}/matches`) ||
          key.startsWith('/api/matches'))
      );
    },
  });
}

export interface MatchActionInput {
  item: FeedItem;
  liked: boolean;
  intent: Intent;
}

/** POST /api/matches for a like (liked true) or a pass (liked false); failures show the SPEC toast. */
export function useMatchAction(onDone: (match: CreateMatchResponse, input: MatchActionInput) => void) {
  const session = useAtomValue(sessionAtom);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ item, liked, intent }: MatchActionInput) => {
      if (!session) throw new Error('Not signed in');
      return apiRequest(api.createMatch, {
        body: {
          user1Id: session.userId,
          user2Id: item.id,
          intent,
          user1Liked: liked,
          user2Liked: false,
          matchPercentage: item.matchPercentage,
        },
      });
    },
    onSuccess: (match, input) => {
      onDone(match, input);
      if (session) void invalidateAfterMatch(queryClient, session.userId, { feed: match.isMutualMatch });
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Error',
        description: errorMessage(error, 'Failed to record match action'),
      });
    },
  });
}

/**
 * Takes back the caller's last pass (POST /api/matches/undo-pass): the person is in the feed again.
 * The feed list itself is kept (the screen puts the person back in front); the counts refresh.
 */
export function useUndoPass(onDone: (input: MatchActionInput) => void) {
  const session = useAtomValue(sessionAtom);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ item, intent }: MatchActionInput) => apiRequest(api.undoPass, { body: { userId: item.id, intent } }),
    onSuccess: (_ok, input) => {
      onDone(input);
      if (session) void invalidateAfterMatch(queryClient, session.userId, { feed: false });
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Could not undo',
        description: errorMessage(error, 'That pass can no longer be undone.'),
      });
    },
  });
}
