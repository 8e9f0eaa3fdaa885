import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type ClientToServerEvents, rooms, type ServerToClientEvents, type SocketData } from '@shared/index';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import proxyaddr from 'proxy-addr';
import { Server, type Socket } from 'socket.io';
import type { DatabaseOutageWatch } from '../core/db/outage';
import { addLogFields, type LogFields, type Logger, secretsOf, withLogFields } from '../core/logger';
import type { Publisher } from '../core/realtime/publisher';
import { watchRedis } from '../core/realtime/watch-redis';
import { type Clock, realTimer, type SessionService, type SetTimer } from '../features/auth/session.service';
import type { ChatService } from '../features/chat/chat.service';
import { ChatRealtime } from '../features/chat/chat.socket';
import type { BadgePusher } from '../features/matches/badges.service';
import type { RateLimits } from '../http/rate-limits';
import { limitSocketEvents, SocketCap } from './socket-limits';

const EXPIRY_RECHECK_MS = 6 * 3600 * 1000;

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type IoSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/**
 * Socket.IO on the HTTP server. The Redis adapter lets N servers (and the worker, through the
 * emitter) reach any socket. A connection needs a valid bearer token in `auth.token`.
 */
export function createRealtime(
  httpServer: HttpServer,
  deps: {
    orm: MikroORM;
    redis: Redis;
    sessions: SessionService;
    logger: Logger;
    badges: BadgePusher;
    chat: ChatService;
    publisher: Publisher;
    outbox: { relay(): Promise<unknown> };
    limits: RateLimits;
    databaseOutage: DatabaseOutageWatch;
  },
  /** Express's compiled TRUST_PROXY ('trust proxy fn'), so a socket's address is the one its requests have. */
  trustProxy: (address: string, hop: number) => boolean,
  /** The clock logins end on (the sessions' own) and its timers; tests move both by hand. */
  time: { now: Clock; setTimer: SetTimer } = { now: Date.now, setTimer: realTimer },
): { io: IoServer; chat: ChatRealtime; close(): Promise<void> } {
  const io: IoServer = new Server(httpServer, { serveClient: false, maxHttpBufferSize: 64 * 1024 });
  const pub = deps.redis.duplicate();
  const sub = deps.redis.duplicate();
  watchRedis(pub, 'socket adapter (pub)', deps.logger);
  watchRedis(sub, 'socket adapter (sub)', deps.logger);
  io.adapter(createAdapter(pub, sub));
  resyncAfterRedisOutage(io, [deps.redis, pub, sub]);
  // And after a database outage: a commit whose answer was lost was never announced (core/db/outage.ts).
  // To every server's sockets (Redis carries it): the person it was for may be connected elsewhere.
  deps.databaseOutage.onRecovered(() => io.emit('realtime:resync', {}));
  const chat = new ChatRealtime(io, deps);
  const cap = new SocketCap(io, deps.redis, deps.logger);

  // First: each socket's lines carry its id and, once known, its person's (docs/operations.md,
  // "Logs"); the middleware below and the connection handler run in that scope.
  io.use((socket, next) => inSocketScope(socket, {}, next));
  io.use(async (socket, next) => {
    try {
      const token = typeof socket.handshake.auth?.token === 'string' ? socket.handshake.auth.token : '';
      const session = await deps.sessions.resolve(deps.orm.em.fork(), token);
      if (!session) return next(new Error('unauthorized'));
      socket.data.userId = session.userId;
      addLogFields({ userId: session.userId });
      socket.data.sessionId = session.id;
      socket.data.ip = proxyaddr(socket.request, trustProxy);
      socket.data.sessionEndsAt = time.now() + deps.sessions.msUntilExpiry(session);
      // At most SOCKETS_PER_PERSON per person: a new one closes their oldest (socket-limits.ts).
      await cap.admit(socket);
      // In its rooms before the last look at the login: a logout that lands between the token
      // check above and the join would otherwise disconnect rooms this socket was not in yet.
      const own = [rooms.user(session.userId), rooms.session(session.id)];
      void socket.join(own);
      if (!(await deps.sessions.isLive(deps.orm.em.fork(), session.id))) {
        for (const room of own) void socket.leave(room);
        return next(new Error('unauthorized'));
      }
      next();
    } catch (error) {
      deps.logger.error('socket authentication failed', error);
      next(new Error('unavailable'));
    }
  });

  io.on('connection', (socket) => {
    // Each event's handlers run in a scope of their own, with the event's name and an id; first, so
    // the allowance check below and everything after it are in it.
    socket.use((packet, next) => inSocketScope(socket, { event: String(packet[0]), eventId: randomUUID() }, next));
    socket.on('disconnect', () => cap.release(socket));
    void cap.confirm(socket);
    // Every event below counts against the person's allowance first.
    limitSocketEvents(socket, deps.limits, deps.logger);
    socket.on('ping', (ack) => {
      if (typeof ack === 'function') ack({ serverTime: new Date().toISOString() });
    });
    // Chat: sends, read receipts, typing, presence (features/chat/chat.socket.ts).
    chat.attach(socket);
    endAtLoginEnd(socket);
    // Fresh badges for the new tab (to every tab of the user: they are the same numbers).
    deps.badges.push(socket.data.userId);
  });

  /**
   * Disconnects the socket when its login ends (expiry or maximum lifetime), as logout does; checked
   * again at the deadline since a rotation may have carried the login on.
   */
  function endAtLoginEnd(socket: IoSocket) {
    let cancel = () => {};
    const wait = (ms: number) => {
      // setTimeout holds at most ~24 days; a login is re-checked at least every 6 hours.
      cancel = time.setTimer(() => void check(), Math.max(0, Math.min(ms, EXPIRY_RECHECK_MS)));
    };
    const check = async () => {
      let msLeft: number;
      try {
        msLeft = await deps.sessions.msLeftInLogin(deps.orm.em.fork(), socket.data.sessionId);
      } catch {
        msLeft = 60_000; // the database did not answer: look again in a minute
      }
      if (!socket.connected) return;
      if (msLeft <= 0) {
        socket.emit('session:ended', 'expired');
        socket.disconnect(true);
        return;
      }
      wait(msLeft + 50);
    };
    socket.on('disconnect', () => cancel());
    // Until the token it connected with expires, nothing can end the login but a revocation,
    // which disconnects the socket itself (logout, account deletion).
    wait((socket.data.sessionEndsAt ?? 0) - time.now() + 50);
  }

  return {
    io,
    chat,
    async close() {
      // Handlers running now finish first (they use the adapter and the database); the sockets'
      // own disconnects on close announce nothing (chat.socket.ts), and the rest is waited for.
      await chat.settle();
      catchUnsubscribes(sub);
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await chat.idle();
      // The adapter subscribes at startup without awaiting; a ping answered means those commands
      // are done, so quitting does not reject them (a server closed right after it started).
      await Promise.allSettled([pub.ping(), sub.ping()]);
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}

/** Runs `run` in a log scope of this socket: its id, its person's, `fields`, and its token kept out. */
function inSocketScope<T>(socket: IoSocket, fields: LogFields, run: () => T): T {
  const token = socket.handshake.auth?.token;
  return withLogFields({ socketId: socket.id, userId: socket.data.userId, ...fields }, run, () => [
    typeof token === 'string' ? token : undefined,
    ...secretsOf({ headers: socket.handshake.headers }),
  ]);
}

/**
 * The Redis adapter's close() unsubscribes without awaiting. With Redis away (stopped in the same
 * shutdown) those commands reject with nobody to catch them, which would crash the process on its
 * way out: from now on they fail quietly.
 */
function catchUnsubscribes(client: Redis): void {
  for (const name of ['unsubscribe', 'punsubscribe'] as const) {
    const original = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(client, { [name]: (...args: unknown[]) => original(...args).catch(() => undefined) });
  }
}

/**
 * Every event goes through Redis (the emitter and the adapter), so what was published while it was
 * away is lost. Once all of this server's connections are back, its sockets are told to catch up
 * (`realtime:resync`), as they would after a reconnection; the socket itself never dropped.
 */
function resyncAfterRedisOutage(io: IoServer, connections: Redis[]): void {
  let missed = false;
  for (const connection of connections) {
    connection.on('close', () => {
      missed = true;
    });
    connection.on('ready', () => {
      if (!missed || !connections.every((c) => c.status === 'ready')) return;
      missed = false;
      io.local.emit('realtime:resync', {});
    });
  }
}
