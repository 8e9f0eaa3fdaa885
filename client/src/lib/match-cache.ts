import { api } from '@shared/api';
import type { MessageReadEvent } from '@shared/events';
import type { Message } from '@shared/schemas/chat';
import { LAST_MESSAGE_PREVIEW_LENGTH, type MatchView } from '@shared/schemas/matches';
import type { QueryClient } from '@tanstack/react-query';
import { endpointQuery, endpointUrl } from './api-client';
import { adjustUnreadBadge } from './badges';

// Where a match lives in the query cache (its lists and single-match entries), shared by the
// matches and chat features and the realtime bridge.

/** GET /api/matches/:matchId (404 when the caller may not see it). */
export function matchQuery(matchId: number) {
  return endpointQuery(api.getMatch, { params: { matchId } });
}

/** Every cached match list of this user (one per intent). */
function isMatchListKey(userId: number, key: readonly unknown[]): boolean {
  const base = endpointUrl(api.listMatches, { params: { userId } });
  const url = key[0];
  return typeof url === 'string' && (url === base || url.startsWith(`${base}?`));
}

/** Applies `change` to every cached match list of the user. */
export function updateMatchLists(
  queryClient: QueryClient,
  userId: number,
  change: (matches: MatchView[]) => MatchView[],
): void {
  queryClient.setQueriesData<MatchView[]>(
    { predicate: (query) => isMatchListKey(userId, query.queryKey) },
    (current) => (current ? change(current) : current),
  );
}

/** The single-match cache entries of a match (GET /api/matches/:id and /api/users/:userId/matches/:id). */
export function singleMatchKeys(userId: number, matchId: number): (readonly unknown[])[] {
  return [matchQuery(matchId).queryKey, endpointQuery(api.getUserMatch, { params: { userId, matchId } }).queryKey];
}

/**
 * Applies `change` to a match wherever it is cached (lists and single entries). Returns the match as
 * it was before, from the first entry found, or undefined when no entry holds it.
 */
export function updateMatch(
  queryClient: QueryClient,
  userId: number,
  matchId: number,
  change: (match: MatchView) => MatchView,
): MatchView | undefined {
  let before: MatchView | undefined;
  const apply = (match: MatchView) => {
    before ??= match;
    return change(match);
  };
  updateMatchLists(queryClient, userId, (matches) =>
    matches.some((m) => m.id === matchId) ? matches.map((m) => (m.id === matchId ? apply(m) : m)) : matches,
  );
  for (const key of singleMatchKeys(userId, matchId)) {
    queryClient.setQueryData<MatchView>(key, (current) => (current ? apply(current) : current));
  }
  return before;
}

/**
 * A stored message of one of the user's matches: its newest seq moves on, and its sender has read up
 * to it (sending counts as reading, docs/chat.md). When it is unread (from the other person, chat not
 * open) the match is marked and, if that makes it newly unread, the Matches badge of its intent counts
 * it (the server's next 'badges:update' stays the authority).
 */
export function noteMessage(
  queryClient: QueryClient,
  userId: number,
  message: Message,
  { unread }: { unread: boolean },
) {
  const own = message.senderId === userId;
  const before = updateMatch(queryClient, userId, message.matchId, (match) => ({
    ...match,
    lastMessage:
      message.seq >= match.lastMessageSeq
        ? {
            senderId: message.senderId,
            text: message.content.slice(0, LAST_MESSAGE_PREVIEW_LENGTH),
            createdAt: message.createdAt,
          }
        : match.lastMessage,
    lastMessageSeq: Math.max(match.lastMessageSeq, message.seq),
    readSeq: own ? Math.max(match.readSeq, message.seq) : match.readSeq,
    otherReadSeq: own ? match.otherReadSeq : Math.max(match.otherReadSeq, message.seq),
    hasUnreadMessages: match.hasUnreadMessages || unread,
  }));
  if (unread && before && !before.hasUnreadMessages) adjustUnreadBadge(queryClient, userId, before.intent, 1);
}

/**
 * Someone of the match read up to `seq`: the user (this or another tab) clears the unread mark when
 * that covers the newest message, or the other person moves the read receipts on.
 */
export function noteRead(queryClient: QueryClient, userId: number, event: MessageReadEvent): void {
  if (event.userId !== userId) {
    updateMatch(queryClient, userId, event.matchId, (match) => ({
      ...match,
      otherReadSeq: Math.max(match.otherReadSeq, event.seq),
    }));
    return;
  }
  let cleared: MatchView | undefined;
  updateMatch(queryClient, userId, event.matchId, (match) => {
    const hasUnreadMessages = match.hasUnreadMessages && event.seq < match.lastMessageSeq;
    if (match.hasUnreadMessages && !hasUnreadMessages) cleared ??= match;
    return { ...match, readSeq: Math.max(match.readSeq, event.seq), hasUnreadMessages };
  });
  if (cleared) adjustUnreadBadge(queryClient, userId, cleared.intent, -1);
}
