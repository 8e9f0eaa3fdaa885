import { z } from 'zod';
import { JobStatusEventSchema } from './events-job-status';
import { ClientMessageIdSchema, MessageContentSchema, MessageSchema } from './schemas/chat';
import { IntentSchema } from './schemas/common';
import { FeedCountsSchema } from './schemas/feed';
import { MatchViewSchema } from './schemas/matches';
import { NoticeSchema } from './schemas/moderation';
import { SelfUserSchema } from './schemas/user';

export * from './events-job-status';

/** Rooms: every socket of a user joins userRoom, so all their tabs receive the same events. */
export const rooms = {
  user: (userId: number) => `user:${userId}`,
  match: (matchId: number) => `match:${matchId}`,
  /** One room per session, so revoking a token can disconnect exactly its sockets. */
  session: (sessionId: number) => `session:${sessionId}`,
} as const;

/** Bottom-navigation badges: pending feed profiles and unread matches, per intent. */
export const BadgeCountsSchema = z.object({
  feed: FeedCountsSchema,
  unreadMatches: z.record(IntentSchema, z.number().int().min(0)),
});
export type BadgeCounts = z.infer<typeof BadgeCountsSchema>;

/** Only the unread-matches part of the badges (a message or a read moved it; the feed part did not). */
export const UnreadBadgesSchema = BadgeCountsSchema.pick({ unreadMatches: true });

export const MatchRemovedEventSchema = z.object({
  matchId: z.number().int().positive(),
  intent: IntentSchema,
  /** Why, when the other person's chat should say so; absent: unmatched or blocked. */
  reason: z.enum(['accountDeleted', 'suspended']).optional(),
});
export type MatchRemovedEvent = z.infer<typeof MatchRemovedEventSchema>;

export const NoticeEventSchema = z.object({ notice: NoticeSchema, appealToken: z.string().nullable() });
export type NoticeEvent = z.infer<typeof NoticeEventSchema>;

export const MessageReadEventSchema = z.object({
  matchId: z.number().int().positive(),
  /** Who read: the reader's own other tabs get it too. */
  userId: z.number().int().positive(),
  seq: z.number().int().min(0),
});
export type MessageReadEvent = z.infer<typeof MessageReadEventSchema>;

export const TypingEventSchema = z.object({
  matchId: z.number().int().positive(),
  userId: z.number().int().positive(),
  typing: z.boolean(),
});
export type TypingEvent = z.infer<typeof TypingEventSchema>;

/** Whether any tab of this person is connected, on any server instance. */
export const PresenceEventSchema = z.object({ userId: z.number().int().positive(), online: z.boolean() });
export type PresenceEvent = z.infer<typeof PresenceEventSchema>;

/** `suspended`: a moderator suspended or banned the account (a 'moderation:notice' came first). */
export const SessionEndedReasonSchema = z.enum(['logout', 'expired', 'suspended']);
export type SessionEndedReason = z.infer<typeof SessionEndedReasonSchema>;

/**
 * Why the server closed this one socket while the login goes on: `too_many_connections`, the
 * person opened more than SOCKETS_PER_PERSON sockets (tabs, devices) and this was the oldest.
 */
export const ConnectionClosedReasonSchema = z.enum(['too_many_connections']);
export type ConnectionClosedReason = z.infer<typeof ConnectionClosedReasonSchema>;

/** Sockets one person may hold at once, over every server instance; a new one closes the oldest. */
export const SOCKETS_PER_PERSON = 10;

/**
 * Every server-to-client event with the schema of its one argument. The client validates what it
 * receives with these; ServerToClientEvents below is derived from them, so the two cannot drift.
 */
export const serverEvents = {
  /** The user's own profile changed (any tab, the worker after an avatar or a sync). */
  'user:updated': SelfUserSchema,
  /** Progress and outcome of a job of this user, typed by job name (events-job-status.ts). */
  'job:status': JobStatusEventSchema,
  /** New badge counts; also sent when a socket connects. */
  'badges:update': BadgeCountsSchema,
  /** New unread-matches counts after a message or a read (the feed counts are unchanged). */
  'badges:unread': UnreadBadgesSchema,
  /** A like made this pair mutual; each person receives the match as they see it. */
  'match:new': MatchViewSchema,
  /** The match is gone for this person (unmatch or block by either side). */
  'match:removed': MatchRemovedEventSchema,
  /** Sent just before the server disconnects a socket whose session ended. */
  'session:ended': SessionEndedReasonSchema,
  /**
   * A moderator acted on this person or decided their appeal: the statement of reasons to show now
   * (docs/moderation.md). Before a suspension ends the session, it carries the appeal token.
   */
  'moderation:notice': NoticeEventSchema,
  /** Sent just before the server disconnects this socket alone; the session stays (do not reconnect by itself). */
  'connection:closed': ConnectionClosedReasonSchema,
  /** A message of one of this person's matches was stored (to both people, every tab; the sender too). */
  'message:new': MessageSchema,
  /** Someone of the match read up to `seq` (read receipts; the reader's other tabs clear their unread mark). */
  'message:read': MessageReadEventSchema,
  /** The other person of a match started or stopped typing. */
  typing: TypingEventSchema,
  /** A match's other person came online (first tab) or went offline (last tab closed). */
  presence: PresenceEventSchema,
  /**
   * Events may have been missed (the server's Redis was away, so nothing it published arrived):
   * catch up as after a reconnection. Sent by each server to its own sockets when Redis is back.
   */
  'realtime:resync': z.strictObject({}),
} as const;

export type ServerEventName = keyof typeof serverEvents;
export type ServerEventPayload<E extends ServerEventName> = z.output<(typeof serverEvents)[E]>;

export type ServerToClientEvents = { [E in ServerEventName]: (payload: ServerEventPayload<E>) => void };

/** What the client sends; the server validates each payload with these before acting. */
export const clientEvents = {
  'message:send': z.strictObject({
    matchId: z.number().int().positive(),
    content: MessageContentSchema,
    clientId: ClientMessageIdSchema,
  }),
  'message:read': z.strictObject({ matchId: z.number().int().positive(), seq: z.number().int().min(0) }),
  typing: z.strictObject({ matchId: z.number().int().positive(), typing: z.boolean() }),
  'presence:get': z.strictObject({ matchId: z.number().int().positive() }),
} as const;
export type ClientEventName = keyof typeof clientEvents;
export type ClientEventPayload<E extends ClientEventName> = z.output<(typeof clientEvents)[E]>;

/** An acknowledgement: the result, or an error as the REST API would have answered it. */
export type Ack<T> = { ok: true; data: T } | { ok: false; error: { status: number; code: string; message: string } };

export interface ClientToServerEvents {
  /** Liveness check with an ack; answers the server time. */
  ping: (ack: (reply: { serverTime: string }) => void) => void;
  /** Sends a message; the ack carries the stored message (the same one again for a repeated clientId). */
  'message:send': (
    payload: ClientEventPayload<'message:send'>,
    ack: (reply: Ack<z.output<typeof MessageSchema>>) => void,
  ) => void;
  /** Read receipts: everything up to `seq` of this match has been read. */
  'message:read': (payload: ClientEventPayload<'message:read'>, ack?: (reply: Ack<null>) => void) => void;
  /** Typing indicator for the other person of the match. */
  typing: (payload: ClientEventPayload<'typing'>) => void;
  /** Whether the other person of the match is online (any tab, any server instance). */
  'presence:get': (payload: ClientEventPayload<'presence:get'>, ack: (reply: Ack<{ online: boolean }>) => void) => void;
}

/** Data the server keeps on each socket after authentication. */
export interface SocketData {
  userId: number;
  sessionId: number;
  /** Set once this socket's connection was checked for announcing the user's presence (server only). */
  presenceAnnounced?: boolean;
  /** When this socket's session was last found live (server only; re-checked at most every few seconds). */
  sessionCheckedAt?: number;
  /** The client's address as TRUST_PROXY resolves it, for per-address rate limits (server only). */
  ip?: string;
  /** When the token this socket connected with expires (server only; its login may go on after a rotation). */
  sessionEndsAt?: number;
}
