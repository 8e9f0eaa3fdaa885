// Every event the server and the worker send to sockets goes through here (docs/architecture.md,
// "Realtime"): RECIPIENTS says who receives each event, and each payload is checked against the
// event's schema (shared/src/events.ts) before anything is sent. Code says what happened and to
// whom it is about; it never picks rooms itself.
import { rooms, type ServerEventName, type ServerEventPayload, serverEvents } from '@shared/index';
import type { RealtimeEmitter } from './emitter';

/** Who an event is about: what RECIPIENTS needs to find its rooms. */
export interface Audiences {
  'user:updated': { userId: number };
  'job:status': { userId: number };
  'badges:update': { userId: number };
  'badges:unread': { userId: number };
  /** Each person of the pair gets their own view: one event per person. */
  'match:new': { userId: number };
  'match:removed': { userIds: number[] };
  'session:ended': { sessionIds: number[] };
  'moderation:notice': { userId: number };
  'connection:closed': never;
  'message:new': { senderId: number; recipientId: number };
  'message:read': { userIds: number[] };
  typing: { recipientId: number };
  presence: { partnerIds: number[] };
  'realtime:resync': never;
}

const users = (ids: number[]) => ids.map((id) => rooms.user(id));

/**
 * Who receives each event (the one table). `null`: never published through the emitter, sent by a
 * server to its own sockets instead (`connection:closed` to one socket it closes, socket-limits.ts;
 * `realtime:resync` after an outage, realtime/io.ts).
 */
export const RECIPIENTS: {
  [E in ServerEventName]: Audiences[E] extends never ? null : (about: Audiences[E]) => string[];
} = {
  // Every tab of the person whose profile changed.
  'user:updated': ({ userId }) => users([userId]),
  // The person whose job it is (docs/videos.md, progress).
  'job:status': ({ userId }) => users([userId]),
  'badges:update': ({ userId }) => users([userId]),
  'badges:unread': ({ userId }) => users([userId]),
  'match:new': ({ userId }) => users([userId]),
  // Both people (unmatch, block, an account deleted): the match is gone for each.
  'match:removed': ({ userIds }) => users(userIds),
  // Exactly the sockets of the ended logins.
  'session:ended': ({ sessionIds }) => sessionIds.map((id) => rooms.session(id)),
  'moderation:notice': ({ userId }) => users([userId]),
  'connection:closed': null,
  // Both people of the match, every tab (the sender's other tabs too).
  'message:new': ({ senderId, recipientId }) => users([senderId, recipientId]),
  // Both people: receipts for one, the other tabs of the reader for the other.
  'message:read': ({ userIds }) => users(userIds),
  // The other person only.
  typing: ({ recipientId }) => users([recipientId]),
  // The people with whom the user has a live mutual match.
  presence: ({ partnerIds }) => users(partnerIds),
  'realtime:resync': null,
};

/** The events published through Redis (RECIPIENTS not null). */
export type PublishedEvent = {
  [E in ServerEventName]: Audiences[E] extends never ? never : E;
}[ServerEventName];

/** An event with what it is about, waiting for its unit of work to commit (core/realtime/effects.ts). */
export type Outgoing = {
  [E in PublishedEvent]: { event: E; payload: ServerEventPayload<E>; about: Audiences[E] };
}[PublishedEvent];

export class InvalidEventError extends Error {}

/** Sends events through Redis to every server's sockets, after checking each against its schema. */
export class Publisher {
  constructor(private readonly emitter: RealtimeEmitter) {}

  /** Checks and sends one event now; callers inside a unit of work use Effects.emit instead. */
  emit<E extends PublishedEvent>(event: E, payload: ServerEventPayload<E>, about: Audiences[E]): void {
    this.send(this.check({ event, payload, about } as Outgoing));
  }

  /** The event as it will be sent, or InvalidEventError (nothing of an invalid event is ever sent). */
  check(outgoing: Outgoing): Outgoing {
    const result = serverEvents[outgoing.event].safeParse(outgoing.payload);
    if (!result.success) {
      throw new InvalidEventError(`event ${outgoing.event} does not match its schema: ${result.error.message}`);
    }
    return { ...outgoing, payload: result.data } as Outgoing;
  }

  send(outgoing: Outgoing): void {
    const recipients = (RECIPIENTS[outgoing.event] as (about: unknown) => string[])(outgoing.about);
    if (recipients.length === 0) return;
    (this.emitter.to(recipients) as { emit(event: string, payload: unknown): void }).emit(
      outgoing.event,
      outgoing.payload,
    );
  }

  /** Ends every socket of these sessions, on every server (logout, account deletion, expiry). */
  endSessions(sessionIds: number[], reason: ServerEventPayload<'session:ended'>): void {
    if (sessionIds.length === 0) return;
    this.emit('session:ended', reason, { sessionIds });
    this.emitter.in(sessionIds.map((id) => rooms.session(id))).disconnectSockets(true);
  }
}
