// The socket cap's check once a socket is connected (socket-limits.ts, SocketCap.confirm), on a real
// Redis: a socket that newer ones took out of its person's count closes itself, while a socket whose
// count Redis lost (it restarted empty while the check waited) stays and is counted again. The
// second case closed an innocent person's socket as "too many connections" after a Redis restart.
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../core/logger';
import { testRedisUrl } from '../test/test-stack';
import type { IoServer, IoSocket } from './io';
import { SocketCap, socketCountKeys } from './socket-limits';

const CAP = 3;

/** What SocketCap touches of a socket: its id and person, whether it is connected, emit and disconnect. */
function fakeSocket(id: string, userId: number) {
  return { id, data: { userId }, connected: true, emit: vi.fn(), disconnect: vi.fn() };
}

describe('the socket cap, once a socket is connected', () => {
  let redis: Redis;
  let cap: SocketCap;
  const closedByCap: string[] = [];
  // Closing the sockets beyond the cap goes through the server (to whichever instance holds them).
  const io = {
    to: (ids: string[]) => ({ emit: () => undefined, ids }),
    in: (ids: string[]) => ({ disconnectSockets: () => closedByCap.push(...ids) }),
  } as unknown as IoServer;

  beforeAll(async () => {
    redis = new Redis(testRedisUrl());
    // Counted in Redis, not on this instance only (as with Redis away).
    await redis.ping();
    cap = new SocketCap(io, redis, createLogger('socket-cap', 'silent'), CAP);
  });
  afterAll(() => redis.disconnect());

  it('closes a socket that newer sockets of its person took out of the count', async () => {
    const userId = randomInt(1e8, 2e9);
    const sockets = Array.from({ length: CAP + 1 }, (_, i) => fakeSocket(`taken-${userId}-${i}`, userId));
    for (const socket of sockets) await cap.admit(socket as unknown as IoSocket);
    const [oldest, ...newer] = sockets;
    expect(closedByCap).toContain(oldest?.id);

    await cap.confirm(oldest as unknown as IoSocket);
    expect(oldest?.emit).toHaveBeenCalledWith('connection:closed', 'too_many_connections');
    expect(oldest?.disconnect).toHaveBeenCalledWith(true);
    for (const socket of newer) {
      await cap.confirm(socket as unknown as IoSocket);
      expect(socket.disconnect).not.toHaveBeenCalled();
    }
  });

  it('keeps a socket whose count Redis lost, and counts it again', async () => {
    const userId = randomInt(1e8, 2e9);
    const socket = fakeSocket(`lost-${userId}`, userId);
    await cap.admit(socket as unknown as IoSocket);
    // A Redis restarted without its data: the person's count is gone.
    await redis.del(...socketCountKeys(userId));

    await cap.confirm(socket as unknown as IoSocket);
    expect(socket.disconnect).not.toHaveBeenCalled();
    expect(socket.emit).not.toHaveBeenCalled();
    const [set] = socketCountKeys(userId);
    expect(await redis.zscore(set as string, socket.id)).not.toBeNull();
  });
});
