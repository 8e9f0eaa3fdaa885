import { z } from 'zod';
import { JobStatusEventSchema } from './events-job-status';
import { IntentSchema } from './schemas/common';
import { FeedCountsSchema } from './schemas/feed';
import { MatchViewSchema } from './schemas/matches';
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

export const MatchRemovedEventSchema = z.object({ matchId: z.number().int().positive(), intent: IntentSchema });
export type MatchRemovedEvent = z.infer<typeof MatchRemovedEventSchema>;

export const SessionEndedReasonSchema = z.enum(['logout', 'expired']);
export type SessionEndedReason = z.infer<typeof SessionEndedReasonSchema>;

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
  /** A like made this pair mutual; each person receives the match as they see it. */
  'match:new': MatchViewSchema,
  /** The match is gone for this person (unmatch or block by either side). */
  'match:removed': MatchRemovedEventSchema,
  /** Sent just before the server disconnects a socket whose session ended. */
  'session:ended': SessionEndedReasonSchema,
} as const;

export type ServerEventName = keyof typeof serverEvents;
export type ServerEventPayload<E extends ServerEventName> = z.output<(typeof serverEvents)[E]>;

export type ServerToClientEvents = { [E in ServerEventName]: (payload: ServerEventPayload<E>) => void };

export interface ClientToServerEvents {
  /** Liveness check with an ack; answers the server time. */
  ping: (ack: (reply: { serverTime: string }) => void) => void;
}

/** Data the server keeps on each socket after authentication. */
export interface SocketData {
  userId: number;
  sessionId: number;
}
