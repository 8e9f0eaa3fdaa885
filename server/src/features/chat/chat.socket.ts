// Chat over Socket.IO: sends with acknowledgements, read receipts, typing, presence (docs/chat.md).
// realtime/io.ts authenticates the socket and hands each connection to `attach`.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import {
  type Ack,
  type ClientEventName,
  type ClientEventPayload,
  type ClientToServerEvents,
  clientEvents,
  rooms,
  type ServerToClientEvents,
  type SocketData,
} from '@shared/index';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Server, Socket } from 'socket.io';
import type { Logger } from '../../core/logger';
import { type EffectSinks, Effects } from '../../core/realtime/effects';
import { DATABASE_UNAVAILABLE, toErrorBody } from '../../http/error-handler';
import { notFound, unauthorized } from '../../http/errors';
import { parsePart } from '../../http/route';
import type { SessionService } from '../auth/session.service';
import { otherOf, visibleMatch } from '../matches/match.service';
import type { ChatService } from './chat.service';
import { liveMatchIds, livePartners } from './message.service';

type ChatIo = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type ChatSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export interface ChatSocketDeps extends EffectSinks {
  orm: MikroORM;
  databaseOutage: { noticed(): void };
  chat: ChatService;
  sessions: SessionService;
  logger: Logger;
}

/**
 * How long a socket's session counts as live after a check. Logout disconnects the login's sockets
 * at once (endSessions), so this only bounds how long an expired session's socket can still act;
 * checking on every event would cost a query per message.
 */
const SESSION_RECHECK_MS = 60_000;

/** Typing signals per person per match forwarded at most this often; the rest are dropped. */
const TYPING_PER_WINDOW = { points: 10, duration: 5 };
/**
 * A socket's list of its person's live matches is read again at most this often when a typing
 * signal names a match not on it: signals for made-up match ids cost no query each.
 */
const MATCH_IDS_RELOAD_MS = 10_000;

/** The live matches of a socket's person as last read, and when. */
interface KnownMatches {
  ids: Set<number>;
  readAt: number;
}

/**
 * The chat side of every socket. Every event has already counted against the person's allowance
 * (realtime/socket-limits.ts). Each client event: its payload is checked with the shared schema
 * (`clientEvents`; invalid = an ack with status 400, never a throw), the socket's session must
 * still be live (a revoked login's socket does not act, and is disconnected), then the same rules
 * as the REST API apply (a match the caller may not see is a 404), and the ack carries the result
 * or `{status, code, message}` as REST would have answered.
 */
export class ChatRealtime {
  private readonly pending = new Set<Promise<void>>();
  /** Per socket, the end of its chain of events: one socket's events are handled in the order sent. */
  private readonly queues = new WeakMap<ChatSocket, Promise<void>>();
  private readonly typingLimiter = new RateLimiterMemory({ keyPrefix: 'typing', ...TYPING_PER_WINDOW });
  private readonly knownMatches = new WeakMap<ChatSocket, KnownMatches>();

  constructor(
    private readonly io: ChatIo,
    private readonly deps: ChatSocketDeps,
  ) {}

  attach(socket: ChatSocket): void {
    socket.on('message:send', (payload, ack) =>
      this.handle(socket, 'message:send', payload, ack, async (em, data, userId, effects) => {
        const message = await this.deps.chat.send(em, effects, userId, data, socket.data.ip);
        this.learnMatch(socket, data.matchId);
        return message;
      }),
    );
    socket.on('message:read', (payload, ack) =>
      this.handle(socket, 'message:read', payload, ack, async (em, data, userId, effects) => {
        await this.deps.chat.read(em, effects, await visibleMatch(em, data.matchId, userId), userId, data.seq);
        this.learnMatch(socket, data.matchId);
        return null;
      }),
    );
    socket.on('presence:get', (payload, ack) =>
      this.handle(socket, 'presence:get', payload, ack, async (em, data, userId) => {
        const match = await visibleMatch(em, data.matchId, userId);
        this.learnMatch(socket, match.id);
        return { online: await this.isOnline(otherOf(match, userId)) };
      }),
    );
    // No ack in the contract: typing is fire and forget (a client that passes one anyway gets it).
    // A match not among the person's live ones is a 404 without a query, and over the throttle a
    // signal is dropped: neither costs a query.
    socket.on('typing', ((payload: unknown, ack?: unknown) =>
      this.handle(
        socket,
        'typing',
        payload,
        ack,
        async (em, data, userId, effects) => {
          let match: Awaited<ReturnType<typeof visibleMatch>>;
          try {
            match = await visibleMatch(em, data.matchId, userId);
          } catch (error) {
            this.knownMatches.get(socket)?.ids.delete(data.matchId);
            throw error;
          }
          effects.emit(
            'typing',
            { matchId: match.id, userId, typing: data.typing },
            { recipientId: otherOf(match, userId) },
          );
          return null;
        },
        async (data, userId) => {
          if (!(await this.mayBeLive(socket, data.matchId))) throw notFound('Match not found.');
          return this.typingLimiter.consume(`${userId}:${data.matchId}`).then(
            () => true,
            () => false,
          );
        },
      )) as ClientToServerEvents['typing']);

    this.track(this.announceConnected(socket));
    socket.on('disconnect', (reason) => {
      // A server shutting down is not the person leaving: their tabs reconnect to another instance.
      if (reason !== 'server shutting down') this.track(this.announceDisconnected(socket));
    });
  }

  /** Resolves once the handlers running now have finished (shutdown: before closing the adapter). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  /** Resolves once no handler is running (shutdown waits for it before closing the database). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Whether any socket of this user is connected, on any server instance (through the Redis adapter). */
  async isOnline(userId: number): Promise<boolean> {
    return (await this.io.in(rooms.user(userId)).fetchSockets()).length > 0;
  }

  private handle<E extends ClientEventName, T>(
    socket: ChatSocket,
    event: E,
    payload: unknown,
    ack: unknown,
    run: (em: EntityManager, data: ClientEventPayload<E>, userId: number, effects: Effects) => Promise<T>,
    /** Runs before anything touches the database: false drops the event (ack `null`); may throw a 429. */
    gate?: (data: ClientEventPayload<E>, userId: number) => Promise<boolean>,
  ): void {
    const reply = (answer: Ack<T>) => {
      if (typeof ack === 'function') ack(answer);
    };
    this.serially(socket, async () => {
      try {
        const data = parsePart(clientEvents[event], payload, 'payload') as ClientEventPayload<E>;
        if (gate && !(await gate(data, socket.data.userId))) {
          reply({ ok: true, data: null as T });
          return;
        }
        const em = this.deps.orm.em.fork() as EntityManager;
        if (!(await this.sessionLive(socket, em))) {
          reply({ ok: false, error: toAckError(unauthorized('Your session has ended. Sign in again.')) });
          socket.disconnect(true);
          return;
        }
        const effects = new Effects(this.deps);
        const data_ = await run(em, data, socket.data.userId, effects);
        // Only an event that succeeded tells anyone (as a request: core/realtime/effects.ts).
        await effects.publish();
        reply({ ok: true, data: data_ });
      } catch (error) {
        const answer = toAckError(error);
        if (answer.code === DATABASE_UNAVAILABLE) this.deps.databaseOutage.noticed();
        else if (answer.status >= 500) this.deps.logger.error(`socket ${event} failed`, error);
        reply({ ok: false, error: answer });
      }
    });
  }

  /**
   * Runs one socket's events one after the other, in the order they arrived: two sends of one tab
   * get their seqs in the order the tab sent them, and a typing stop never overtakes its start.
   */
  private serially(socket: ChatSocket, task: () => Promise<void>): void {
    const next = (this.queues.get(socket) ?? Promise.resolve())
      .then(task)
      .catch((error) => this.deps.logger.warn(`chat socket event failed: ${(error as Error).message}`));
    this.queues.set(socket, next);
    this.track(next);
  }

  private async sessionLive(socket: ChatSocket, em: EntityManager): Promise<boolean> {
    const checkedAt = socket.data.sessionCheckedAt;
    if (checkedAt !== undefined && Date.now() - checkedAt < SESSION_RECHECK_MS) return true;
    const live = await this.deps.sessions.isLive(em, socket.data.sessionId);
    if (live) socket.data.sessionCheckedAt = Date.now();
    return live;
  }

  /**
   * Whether `matchId` may be one of the socket's person's live matches: on the list read last, or
   * on a fresh one if the last is older than MATCH_IDS_RELOAD_MS. False means certainly not as of
   * that read (a match made since is learned by the reload, or by a send, read or presence
   * question that found it). One socket's events run one at a time, so one read at a time.
   */
  private async mayBeLive(socket: ChatSocket, matchId: number): Promise<boolean> {
    const known = this.knownMatches.get(socket);
    if (known?.ids.has(matchId)) return true;
    if (known && Date.now() - known.readAt < MATCH_IDS_RELOAD_MS) return false;
    const ids = await liveMatchIds(this.deps.orm.em.fork() as EntityManager, socket.data.userId);
    this.knownMatches.set(socket, { ids: new Set(ids), readAt: Date.now() });
    return ids.includes(matchId);
  }

  /** A match an event just found live goes on the socket's list (if it has one yet). */
  private learnMatch(socket: ChatSocket, matchId: number): void {
    this.knownMatches.get(socket)?.ids.add(matchId);
  }

  /**
   * Presence: the first tab of a person (on any instance) makes them online for everyone with whom
   * they have a live mutual match. Tabs opening at the same moment may each announce it (the same
   * state twice, harmless); a tab opening while another already announced does not.
   */
  private async announceConnected(socket: ChatSocket): Promise<void> {
    const userId = socket.data.userId;
    const sockets = await this.io.in(rooms.user(userId)).fetchSockets();
    const announcedBefore = sockets.some((s) => s.id !== socket.id && s.data.presenceAnnounced);
    socket.data.presenceAnnounced = true;
    if (!announcedBefore) await this.announce(userId, true);
  }

  /** The last tab of a person closed, on every instance: offline for their matches. */
  private async announceDisconnected(socket: ChatSocket): Promise<void> {
    const userId = socket.data.userId;
    if (await this.isOnline(userId)) return;
    await this.announce(userId, false);
  }

  private async announce(userId: number, online: boolean): Promise<void> {
    const partners = await livePartners(this.deps.orm.em.fork() as EntityManager, userId);
    if (partners.length === 0) return;
    this.deps.publisher.emit('presence', { userId, online }, { partnerIds: partners });
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error) =>
      this.deps.logger.warn(`chat socket task failed: ${(error as Error).message}`),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}

/** The answer REST would give (the same mapping: a vanished row 404, the database away 503). */
function toAckError(error: unknown): { status: number; code: string; message: string } {
  const { status, body } = toErrorBody(error);
  return { status, code: body.error, message: body.message };
}
