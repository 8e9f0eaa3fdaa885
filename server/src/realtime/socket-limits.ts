// What one person's sockets may cost (docs/chat.md, "Socket limits"): every event they send counts
// against one allowance shared by all their sockets on every instance (`socketEvents` in
// http/rate-limits.ts), and they hold at most SOCKETS_PER_PERSON sockets at once, counted in Redis;
// a new one closes the oldest.
import { type Ack, type ConnectionClosedReason, rooms, SOCKETS_PER_PERSON } from '@shared/index';
import type { Redis } from 'ioredis';
import type { Logger } from '../core/logger';
import { HttpError } from '../http/errors';
import type { RateLimits } from '../http/rate-limits';
import type { IoServer, IoSocket } from './io';

/**
 * Counts each event of this socket against the person's and the address's `socketEvents`
 * allowance before any handler sees it. Over it, the event is dropped, and answered with a 429 if
 * it came with an acknowledgement. The checks of one socket run one after the other, so its events
 * still reach the handlers in the order it sent them.
 */
export function limitSocketEvents(socket: IoSocket, limits: RateLimits, logger: Logger): void {
  let previous = Promise.resolve();
  socket.use((packet, next) => {
    previous = previous.then(async () => {
      try {
        await limits.take('socketEvents', { user: socket.data.userId, ip: socket.data.ip });
      } catch (error) {
        if (!(error instanceof HttpError)) {
          // Not a refusal (the limiter itself failed): the event still meets every other check.
          logger.warn(`socket event limit unavailable: ${(error as Error).message}`);
          return next();
        }
        const ack = packet[packet.length - 1];
        const refused: Ack<never> = {
          ok: false,
          error: { status: error.status, code: error.code, message: error.message },
        };
        if (typeof ack === 'function') ack(refused);
        return;
      }
      next();
    });
  });
}

/**
 * One sorted set per person of their sockets' ids, scored by a per-person counter (the order they
 * connected in, whichever instance's clock): adding one and taking out all but the newest
 * SOCKETS_PER_PERSON is one atomic step, so sockets opening at once on several instances never
 * leave more. The ids taken out are returned, to be closed.
 */
const ADMIT = `
local order = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], order, ARGV[1])
local cap = tonumber(ARGV[2])
local over = redis.call('ZRANGE', KEYS[1], 0, -(cap + 1))
if #over > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, #over - 1) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return over`;

/**
 * 1 when the socket is still counted, or counted again because the count lost it without being full
 * (Redis restarted empty); 0 when newer sockets took its place.
 */
const CONFIRM = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
local order = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], order, ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1`;

/** An entry of a socket that vanished without a disconnect (its instance died) is forgotten after this. */
const ENTRY_TTL_SECONDS = 24 * 3600;

/** The sorted set of a person's counted sockets and its order counter. */
export const socketCountKeys = (userId: number) => [
  `podmatch:sockets:{${userId}}`,
  `podmatch:sockets:{${userId}}:order`,
];

export class SocketCap {
  /** Sockets counted in Redis (not while it was away): what `confirm` checks. */
  private readonly counted = new WeakSet<IoSocket>();

  constructor(
    private readonly io: IoServer,
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly cap = SOCKETS_PER_PERSON,
  ) {}

  /**
   * Counts a new socket of its person (before it is connected, so sockets opened one after the
   * other are ordered as they were opened) and closes their oldest beyond the cap, on whichever
   * instance they are. With Redis away, the cap holds for this instance's sockets.
   */
  async admit(socket: IoSocket): Promise<void> {
    const userId = socket.data.userId;
    let over: string[];
    let everywhere = true;
    try {
      if (this.redis.status !== 'ready') throw new Error(`Redis is ${this.redis.status}`);
      over = (await this.redis.eval(
        ADMIT,
        2,
        ...socketCountKeys(userId),
        socket.id,
        this.cap,
        ENTRY_TTL_SECONDS,
      )) as string[];
      this.counted.add(socket);
    } catch (error) {
      this.logger.warn(`socket cap counted on this instance only: ${(error as Error).message}`);
      everywhere = false;
      // The new socket has not joined the person's room yet: keep the newest cap - 1 of the others.
      const local = await this.io.local.in(rooms.user(userId)).fetchSockets();
      local.sort((a, b) => a.handshake.issued - b.handshake.issued);
      over = local.slice(0, Math.max(0, local.length - (this.cap - 1))).map((s) => s.id);
    }
    if (over.length > 0) this.close(over, 'too_many_connections', everywhere);
  }

  /**
   * Once connected: a socket taken out of the count before it could be reached (a newer one was
   * admitted, possibly on another instance, while this one was still connecting) closes itself. A
   * socket missing from a count that is not full was not taken out: Redis lost the count (it
   * restarted while this check waited), so the socket is counted again and stays.
   */
  async confirm(socket: IoSocket): Promise<void> {
    if (!this.counted.has(socket) || this.redis.status !== 'ready') return;
    const kept = await this.redis
      .eval(CONFIRM, 2, ...socketCountKeys(socket.data.userId), socket.id, this.cap, ENTRY_TTL_SECONDS)
      .catch(() => 1);
    if (kept === 0 && socket.connected) {
      socket.emit('connection:closed', 'too_many_connections');
      socket.disconnect(true);
    }
  }

  /** Forgets a socket that disconnected (also a shutdown's: it reconnects elsewhere and is counted again). */
  release(socket: IoSocket): void {
    if (!this.counted.has(socket) || this.redis.status !== 'ready') return;
    this.redis.zrem(socketCountKeys(socket.data.userId)[0] ?? '', socket.id).catch(() => undefined);
  }

  /**
   * The reason first, then the disconnect (through the adapter to other instances: both travel
   * over the same Redis subscription, in this order). The client does not reconnect by itself
   * after a disconnect by the server.
   */
  private close(socketIds: string[], reason: ConnectionClosedReason, everywhere: boolean): void {
    const scope = everywhere ? this.io : this.io.local;
    scope.to(socketIds).emit('connection:closed', reason);
    scope.in(socketIds).disconnectSockets(true);
  }
}
