import { api } from '@shared/api';
import { type Intent, TIMING } from '@shared/constants';
import { PAGE_SIZES } from '@shared/schemas/common';
import type { MatchView, ReportBody } from '@shared/schemas/matches';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { allPagesQuery, apiRequest } from '@/lib/api-client';
import { singleMatchKeys, updateMatchLists } from '@/lib/match-cache';
import { useSocketConnected } from '@/lib/socket';

/** GET /api/users/:userId/matches?intent=, keyed by its URL like every endpoint query. */
export function matchesQuery(userId: number, intent: Intent) {
  return allPagesQuery(api.listMatches, { params: { userId }, query: { intent } }, PAGE_SIZES.matches);
}

/** When a match last saw something happen: its newest message, else when it was made. */
const lastActivity = (match: MatchView) => match.lastMessage?.createdAt ?? match.createdAt;

/**
 * Favourites first, then the newest conversation (as the server orders them, docs/matches.md): a
 * message arriving live moves its match up without a reload.
 */
export function sortMatches(matches: readonly MatchView[]): MatchView[] {
  return [...matches].sort(
    (a, b) =>
      Number(b.isFavorite) - Number(a.isFavorite) || lastActivity(b).localeCompare(lastActivity(a)) || b.id - a.id,
  );
}

/** The list; while the socket is down it is polled (TIMING.messagePollMs) so unread marks still arrive. */
export function useMatches(userId: number, intent: Intent) {
  const connected = useSocketConnected();
  return useQuery({
    ...matchesQuery(userId, intent),
    select: sortMatches,
    refetchInterval: connected ? false : TIMING.messagePollMs,
  });
}

/** A new mutual match joins the loaded list of its intent at once (the list's select sorts it). */
export function addMatchToList(queryClient: QueryClient, userId: number, match: MatchView): void {
  queryClient.setQueryData<MatchView[]>(matchesQuery(userId, match.intent).queryKey, (current) =>
    current && !current.some((m) => m.id === match.id) ? [match, ...current] : current,
  );
}

/** An ended match leaves every cached list, and its single-match entries leave the cache. */
export function forgetMatch(queryClient: QueryClient, userId: number, matchId: number): void {
  updateMatchLists(queryClient, userId, (matches) => matches.filter((m) => m.id !== matchId));
  for (const queryKey of singleMatchKeys(userId, matchId)) queryClient.removeQueries({ queryKey, exact: true });
}

/** PUT /api/matches/:id {isFavorite}: flips at once, rolls back if the server refuses. */
export function useToggleFavorite(userId: number, intent: Intent) {
  const queryClient = useQueryClient();
  const key = matchesQuery(userId, intent).queryKey;
  return useMutation({
    mutationFn: ({ matchId, isFavorite }: { matchId: number; isFavorite: boolean }) =>
      apiRequest(api.updateMatch, { params: { matchId }, body: { isFavorite } }),
    onMutate: async ({ matchId, isFavorite }) => {
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<MatchView[]>(key);
      queryClient.setQueryData<MatchView[]>(key, (current) =>
        current?.map((m) => (m.id === matchId ? { ...m, isFavorite } : m)),
      );
      return { previous };
    },
    onError: (_error, _vars, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
    },
    onSuccess: (match) => {
      queryClient.setQueryData<MatchView[]>(key, (current) =>
        current?.map((m) => (m.id === match.id ? { ...m, isFavorite: match.isFavorite } : m)),
      );
    },
  });
}

/** POST /api/matches/:id/seen: the 'New' badge goes at once; failures are harmless. */
export function useMarkSeen(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (matchId: number) => apiRequest(api.markMatchSeen, { params: { matchId } }),
    onMutate: (matchId) => {
      updateMatchLists(queryClient, userId, (matches) =>
        matches.map((m) => (m.id === matchId ? { ...m, hasUnreadMessages: false } : m)),
      );
    },
  });
}

/** DELETE /api/matches/:id. */
export function useUnmatch(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (matchId: number) => apiRequest(api.unmatch, { params: { matchId } }),
    onSuccess: (_data, matchId) => forgetMatch(queryClient, userId, matchId),
  });
}

/** POST /api/blocks: hides both people from each other everywhere, so every list is refetched. */
export function useBlockUser(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (blockedId: number) => apiRequest(api.blockUser, { body: { userId: blockedId } }),
    onSuccess: (_data, blockedId) => {
      updateMatchLists(queryClient, userId, (matches) => matches.filter((m) => m.matchedUser.id !== blockedId));
      void queryClient.invalidateQueries();
    },
  });
}

/** POST /api/reports. */
export function useReportUser() {
  return useMutation({
    mutationFn: (body: ReportBody) => apiRequest(api.reportUser, { body }),
  });
}
