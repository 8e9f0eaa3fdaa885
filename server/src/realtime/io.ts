import type { Server as HttpServer } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type ClientToServerEvents, rooms, type ServerToClientEvents, type SocketData } from '@shared/index';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import { Server } from 'socket.io';
import type { Logger } from '../core/logger';
import type { RealtimeEmitter } from '../core/realtime/emitter';
import type { SessionService } from '../features/auth/session.service';
import type { ChatService } from '../features/chat/chat.service';
import { ChatRealtime } from '../features/chat/chat.socket';
import type { BadgePusher } from '../features/matches/badges.service';

export type IoServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

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
    emitter: RealtimeEmitter;
  },
): { io: IoServer; chat: ChatRealtime; close(): Promise<void> } {
  const io: IoServer = new Server(httpServer, { serveClient: false, maxHttpBufferSize: 64 * 1024 });
  const pub = deps.redis.duplicate();
  const sub = deps.redis.duplicate();
  io.adapter(createAdapter(pub, sub));
  const chat = new ChatRealtime(io, deps);

  io.use(async (socket, next) => {
    try {
      const token = typeof socket.handshake.auth?.token === 'string' ? socket.handshake.auth.token : '';
      const session = await deps.sessions.resolve(deps.orm.em.fork(), token);
      if (!session) return next(new Error('unauthorized'));
      socket.data.userId = session.userId;
      socket.data.sessionId = session.id;
      next();
    } catch (error) {
      deps.logger.error('socket authentication failed', error);
      next(new Error('unavailable'));
    }
  });

  io.on('connection', (socket) => {
    void socket.join([rooms.user(socket.data.userId), rooms.session(socket.data.sessionId)]);
    socket.on('ping', (ack) => {
      if (typeof ack === 'function') ack({ serverTime: new Date().toISOString() });
    });
    // Chat: sends, read receipts, typing, presence (features/chat/chat.socket.ts).
    chat.attach(socket);
    // Fresh badges for the new tab (to every tab of the user: they are the same numbers).
    deps.badges.push(socket.data.userId);
  });

  return {
    io,
    chat,
    async close() {
      // Handlers running now finish first (they use the adapter and the database); the sockets'
      // own disconnects on close announce nothing (chat.socket.ts), and the rest is waited for.
      await chat.settle();
      await new Promise<void>((resolve) => io.close(() => resolve()));
      await chat.idle();
      // The adapter subscribes at startup without awaiting; a ping answered means those commands
      // are done, so quitting does not reject them (a server closed right after it started).
      await Promise.allSettled([pub.ping(), sub.ping()]);
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}
