import { rooms, type ServerToClientEvents } from '@shared/index';
import { Emitter } from '@socket.io/redis-emitter';
import type { Redis } from 'ioredis';

export type RealtimeEmitter = Emitter<ServerToClientEvents>;

/** Emits to sockets on any server through Redis; used after a change is committed. */
export function createEmitter(redis: Redis): RealtimeEmitter {
  return new Emitter<ServerToClientEvents>(redis);
}

/** Ends every socket of these sessions, on every server. */
export function endSessions(emitter: RealtimeEmitter, sessionIds: number[], reason: 'logout' | 'expired'): void {
  if (sessionIds.length === 0) return;
  const targets = sessionIds.map((id) => rooms.session(id));
  emitter.to(targets).emit('session:ended', reason);
  emitter.in(targets).disconnectSockets(true);
}
