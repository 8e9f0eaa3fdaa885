import { rooms, type ServerToClientEvents } from '@shared/index';
import { Emitter } from '@socket.io/redis-emitter';
import type { Redis } from 'ioredis';

export type RealtimeEmitter = Emitter<ServerToClientEvents>;

/**
 * Emits to sockets on any server through Redis; used after a change is committed. An event published
 * while Redis is away is lost (clients catch up by seq, docs/chat.md), never an unhandled rejection
 * that would take the process down: the emitter does not await its publishes.
 */
export function createEmitter(redis: Redis): RealtimeEmitter {
  const publisher = {
    publish: (channel: string, message: string | Buffer) => redis.publish(channel, message).catch(() => 0),
  };
  return new Emitter<ServerToClientEvents>(publisher as unknown as Redis);
}

/** Ends every socket of these sessions, on every server. */
export function endSessions(emitter: RealtimeEmitter, sessionIds: number[], reason: 'logout' | 'expired'): void {
  if (sessionIds.length === 0) return;
  const targets = sessionIds.map((id) => rooms.session(id));
  emitter.to(targets).emit('session:ended', reason);
  emitter.in(targets).disconnectSockets(true);
}
