import { api } from '@shared/api';
import { LIMITS } from '@shared/constants';
import type { TypingEvent } from '@shared/events';
import type { Message } from '@shared/schemas/chat';
import { type QueryClient, queryOptions, skipToken } from '@tanstack/react-query';
import { apiRequest, isApiError } from '@/lib/api-client';
import { matchQuery } from '@/lib/match-cache';

// A conversation lives in the query cache under one key per match. Its keys start with 'chat', not
// with a URL, so the invalidations of match lists (prefix '/api/users/:id/matches') never refetch it
// and drop older pages or pending messages.

/** An own message on its way (optimistic), shown until the stored one with its clientId arrives. */
export interface PendingMessage {
  clientId: string;
  content: string;
  createdAt: string;
}

export interface Conversation {
  /** Stored messages, oldest first (by seq), each once. */
  messages: Message[];
  pending: PendingMessage[];
  /** Whether messages older than the first loaded one may exist. */
  hasOlder: boolean;
}

export const conversationKey = (matchId: number) => ['chat', 'messages', matchId] as const;
const pollKey = (matchId: number) => ['chat', 'poll', matchId] as const;

/**
 * Adds stored messages: each seq once (also when it arrives again through the ack, 'message:new', a
 * catch-up or polling), in seq order, and a pending message leaves once its stored copy is there.
 */
export function mergeMessages(conversation: Conversation, incoming: readonly Message[]): Conversation {
  if (incoming.length === 0) return conversation;
  const bySeq = new Map(conversation.messages.map((m) => [m.seq, m]));
  const ids = new Set(conversation.messages.map((m) => m.id));
  let added = false;
  for (const message of incoming) {
    if (bySeq.has(message.seq) || ids.has(message.id)) continue;
    bySeq.set(message.seq, message);
    ids.add(message.id);
    added = true;
  }
  const stored = new Set(incoming.map((m) => m.clientId).filter(Boolean));
  const pending = conversation.pending.filter((p) => !stored.has(p.clientId));
  if (!added && pending.length === conversation.pending.length) return conversation;
  const messages = added ? [...bySeq.values()].sort((a, b) => a.seq - b.seq) : conversation.messages;
  return { ...conversation, messages, pending };
}

/**
 * The last seq up to which the loaded messages have no gap. Seqs of a match are 1, 2, 3... so a gap
 * means messages were missed (e.g. a 'message:new' arrived before the catch-up of the ones before it).
 */
export function contiguousEnd(messages: readonly Message[]): number {
  const [first, ...rest] = messages;
  if (!first) return 0;
  let end = first.seq;
  for (const message of rest) {
    if (message.seq > end + 1) break;
    end = Math.max(end, message.seq);
  }
  return end;
}

type PageQuery = { before?: number; after?: number; limit: number };

function fetchPage(userId: number, matchId: number, query: PageQuery, signal?: AbortSignal) {
  return apiRequest(api.listMessages, { params: { userId, matchId }, query }, { signal });
}

/** The newest page; merged into what is cached, so a refetch never drops older pages or pending sends. */
export function conversationQuery(userId: number, matchId: number) {
  return queryOptions<Conversation>({
    queryKey: conversationKey(matchId),
    queryFn: async ({ client, signal }) => {
      const limit = LIMITS.messagePageSize;
      const page = await fetchPage(userId, matchId, { limit }, signal);
      const current = client.getQueryData<Conversation>(conversationKey(matchId));
      return mergeMessages(current ?? { messages: [], pending: [], hasOlder: page.length === limit }, page);
    },
  });
}

export function getConversation(queryClient: QueryClient, matchId: number): Conversation | undefined {
  return queryClient.getQueryData<Conversation>(conversationKey(matchId));
}

function update(queryClient: QueryClient, matchId: number, change: (c: Conversation) => Conversation): void {
  queryClient.setQueryData<Conversation>(conversationKey(matchId), (current) => (current ? change(current) : current));
}

export function addMessages(queryClient: QueryClient, matchId: number, messages: readonly Message[]): void {
  update(queryClient, matchId, (c) => mergeMessages(c, messages));
}

export function addPending(queryClient: QueryClient, matchId: number, pending: PendingMessage): void {
  update(queryClient, matchId, (c) =>
    // Already stored (a retry of a send that went through after all): nothing to show twice.
    c.messages.some((m) => m.clientId === pending.clientId) ? c : { ...c, pending: [...c.pending, pending] },
  );
}

export function dropPending(queryClient: QueryClient, matchId: number, clientId: string): void {
  update(queryClient, matchId, (c) => ({ ...c, pending: c.pending.filter((p) => p.clientId !== clientId) }));
}

/**
 * A message pushed by the server ('message:new'): appended when the conversation is loaded; when its
 * first page is still on the way, added once that page is in (it may have been read before the
 * message was stored). Conversations never opened are left alone.
 */
export function receiveMessage(queryClient: QueryClient, userId: number, message: Message): void {
  const query = queryClient.getQueryCache().find<Conversation>({ queryKey: conversationKey(message.matchId) });
  if (!query) return;
  if (query.state.data) {
    addMessages(queryClient, message.matchId, [message]);
  } else if (query.state.fetchStatus === 'fetching') {
    void queryClient
      .fetchQuery(conversationQuery(userId, message.matchId))
      .then(() => addMessages(queryClient, message.matchId, [message]))
      .catch(() => {});
  }
}

/** Loads the page before the oldest loaded message (scrolling up). */
export async function loadOlder(queryClient: QueryClient, userId: number, matchId: number): Promise<void> {
  const current = getConversation(queryClient, matchId);
  if (!current?.hasOlder) return;
  const oldest = current.messages[0]?.seq;
  if (oldest === undefined || oldest <= 1) {
    update(queryClient, matchId, (c) => ({ ...c, hasOlder: false }));
    return;
  }
  const limit = LIMITS.messagePageSize;
  const page = await fetchPage(userId, matchId, { before: oldest, limit });
  update(queryClient, matchId, (c) => ({ ...mergeMessages(c, page), hasOlder: page.length === limit }));
}

const catchUps = new Map<number, Promise<void>>();

/**
 * Fetches everything after the last seq the conversation has without a gap, page after page while
 * full pages come back (after a reconnect, and as the polling fallback). One at a time per match.
 */
export function catchUp(queryClient: QueryClient, userId: number, matchId: number): Promise<void> {
  const running = catchUps.get(matchId);
  if (running) return running;
  const run = (async () => {
    const limit = LIMITS.messagePageMax;
    let after = -1;
    for (;;) {
      const current = getConversation(queryClient, matchId);
      // Not loaded (or forgotten meanwhile), or the server gave nothing new for this position.
      if (!current || contiguousEnd(current.messages) === after) return;
      after = contiguousEnd(current.messages);
      const page = await fetchPage(userId, matchId, { after, limit }).catch((error: unknown) => {
        // The server no longer shows this match to us (unmatched or blocked while we were away).
        if (isApiError(error, 404) || isApiError(error, 403)) forgetConversation(queryClient, matchId);
        throw error;
      });
      addMessages(queryClient, matchId, page);
      if (page.length < limit) return;
    }
  })().finally(() => catchUps.delete(matchId));
  catchUps.set(matchId, run);
  return run;
}

/** Catch-up for every conversation in the cache (after the socket (re)connects). */
export async function catchUpAll(queryClient: QueryClient, userId: number): Promise<void> {
  const loaded = queryClient.getQueriesData<Conversation>({ queryKey: ['chat', 'messages'] });
  await Promise.all(
    loaded.flatMap(([key, data]) => {
      const matchId = key[2];
      return data && typeof matchId === 'number' ? [catchUp(queryClient, userId, matchId).catch(() => {})] : [];
    }),
  );
}

/** The polling fallback's query: enable it while the socket is down; each run is a catch-up. */
export function pollQuery(userId: number, matchId: number) {
  return queryOptions({
    queryKey: pollKey(matchId),
    queryFn: async ({ client }) => {
      // Read receipts and the unread state travel with the match.
      void client.invalidateQueries({ queryKey: matchQuery(matchId).queryKey, exact: true });
      await catchUp(client, userId, matchId);
      return contiguousEnd(getConversation(client, matchId)?.messages ?? []);
    },
  });
}

// Live state around a conversation, also in the query cache (so a new session starts empty).

/**
 * Why a conversation is gone: it ended (unmatch, block, not found), the other person left, or a
 * moderator suspended or banned them (docs/moderation.md).
 */
export type RemovedReason = 'ended' | 'accountDeleted' | 'suspended';

/** Matches the server ended ('match:removed'): their chat says so, late messages are ignored. */
export function removedQuery(matchId: number) {
  return queryOptions<RemovedReason>({ queryKey: ['chat', 'removed', matchId], queryFn: skipToken, gcTime: Infinity });
}

export function isConversationRemoved(queryClient: QueryClient, matchId: number): boolean {
  return queryClient.getQueryData(removedQuery(matchId).queryKey) !== undefined;
}

/** The match is gone: forget its messages and live state, and remember it so nothing revives it. */
export function forgetConversation(queryClient: QueryClient, matchId: number, reason: RemovedReason = 'ended'): void {
  queryClient.setQueryData(removedQuery(matchId).queryKey, reason);
  for (const queryKey of [conversationKey(matchId), pollKey(matchId), typingQuery(matchId).queryKey])
    queryClient.removeQueries({ queryKey, exact: true });
}

export interface TypingState {
  userId: number;
  /** Date.now() when the last 'typing: true' arrived; it counts for TYPING_SHOWN_MS. */
  at: number;
}

export function typingQuery(matchId: number) {
  return queryOptions<TypingState | null>({ queryKey: ['chat', 'typing', matchId], queryFn: skipToken });
}

export function setTyping(queryClient: QueryClient, event: TypingEvent): void {
  const state: TypingState | null = event.typing ? { userId: event.userId, at: Date.now() } : null;
  queryClient.setQueryData(typingQuery(event.matchId).queryKey, state);
}

/** Whether any tab of a person is connected (from 'presence:get' and 'presence' events). */
export function presenceQuery(userId: number) {
  return queryOptions<boolean>({ queryKey: ['chat', 'presence', userId], queryFn: skipToken, gcTime: Infinity });
}

export function setPresence(queryClient: QueryClient, userId: number, online: boolean): void {
  queryClient.setQueryData(presenceQuery(userId).queryKey, online);
}

const openChats = new Map<number, number>();

/** A chat screen is showing this match (its messages are read there, so they are not unread). */
export function markChatOpen(matchId: number): () => void {
  openChats.set(matchId, (openChats.get(matchId) ?? 0) + 1);
  return () => {
    const left = (openChats.get(matchId) ?? 1) - 1;
    if (left > 0) openChats.set(matchId, left);
    else openChats.delete(matchId);
  };
}

export function isChatOpen(matchId: number): boolean {
  return openChats.has(matchId);
}
