import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import type { BadgeCounts } from '@shared/events';
import type { FeedCounts } from '@shared/schemas/feed';
import { type QueryClient, queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from './api-client';

const zero = () => ({ romantic: 0, platonic: 0, professional: 0 });

export const EMPTY_BADGES: BadgeCounts = { feed: zero(), unreadMatches: zero() };

/**
 * Bottom-navigation badge counts in the query cache. Read once when the navigation mounts; then
 * the server pushes them ('badges:update', also on every socket connect), the feed's counts query
 * refreshes the feed part, and while the socket is down the realtime bridge re-reads them every
 * 5 s (the polling fallback).
 */
export function badgesQuery(userId: number) {
  return queryOptions<BadgeCounts>({
    queryKey: ['badges', userId],
    queryFn: ({ signal }) => apiRequest(api.badges, { params: { userId } }, { signal }),
    // Kept while nothing shows them (e.g. pushed before the navigation mounts).
    gcTime: Number.POSITIVE_INFINITY,
  });
}

export function useBadges(userId: number | null): BadgeCounts {
  const { data } = useQuery({ ...badgesQuery(userId ?? 0), enabled: userId !== null });
  return data ?? EMPTY_BADGES;
}

export function setBadges(queryClient: QueryClient, userId: number, counts: BadgeCounts): void {
  queryClient.setQueryData(badgesQuery(userId).queryKey, counts);
}

/** Replaces the unread part; without counts yet (nothing read so far), the whole set is fetched. */
export function setUnreadBadges(queryClient: QueryClient, userId: number, unreadMatches: BadgeCounts['unreadMatches']) {
  const key = badgesQuery(userId).queryKey;
  if (!queryClient.getQueryData(key)) {
    void queryClient.invalidateQueries({ queryKey: key });
    return;
  }
  queryClient.setQueryData(key, (current) => (current ? { ...current, unreadMatches } : current));
}

export function setFeedBadges(queryClient: QueryClient, userId: number, feed: FeedCounts): void {
  queryClient.setQueryData(badgesQuery(userId).queryKey, (current) => ({ ...(current ?? EMPTY_BADGES), feed }));
}

/** Moves the unread-matches count of one intent by `delta` (never below 0); no-op before the first push. */
export function adjustUnreadBadge(queryClient: QueryClient, userId: number, intent: Intent, delta: number): void {
  queryClient.setQueryData(badgesQuery(userId).queryKey, (current) =>
    current
      ? {
          ...current,
          unreadMatches: { ...current.unreadMatches, [intent]: Math.max(0, current.unreadMatches[intent] + delta) },
        }
      : current,
  );
}
