// How many messages one person may send per window, REST and socket together, counted in Redis so
// that every server instance shares the count (docs/chat.md, rate limiting).
import { CHAT_TEXTS } from '@shared/index';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../../http/errors';

export interface SendLimitSettings {
  limit: number;
  windowSeconds: number;
}

export class SendLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, settings: SendLimitSettings) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'podmatch:chat-send',
      points: settings.limit,
      duration: settings.windowSeconds,
      // Redis down: count in this process instead (a per-instance limit) rather than refuse every
      // send or let every send through; the messages themselves are in PostgreSQL.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({
        keyPrefix: 'podmatch:chat-send',
        points: settings.limit,
        duration: settings.windowSeconds,
      }),
    });
  }

  /** Takes one send from the person's allowance; over it, a 429 with the seconds to wait (Retry-After). */
  async take(userId: number): Promise<void> {
    try {
      await this.limiter.consume(String(userId));
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        throw tooManyRequests(CHAT_TEXTS.rateLimited, Math.ceil(error.msBeforeNext / 1000));
      }
      throw error;
    }
  }
}
