// How many video projects (generations and uploads) one person may start per hour, counted in Redis
// so every server instance shares the count: each costs seconds of ffmpeg on a worker (docs/video.md).
import { VIDEO_TEXTS } from '@shared/index';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { tooManyRequests } from '../../http/errors';

export const VIDEO_LIMIT = { points: 20, windowSeconds: 3600 } as const;

export class VideoLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, settings: { points: number; windowSeconds: number } = VIDEO_LIMIT) {
    const options = { keyPrefix: 'podmatch:video-start', points: settings.points, duration: settings.windowSeconds };
    this.limiter = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      // Redis down: count in this process (a per-instance limit) rather than refuse or allow everything.
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }

  /** Takes one start from the person's allowance; over it, a 429 with Retry-After. */
  async take(userId: number): Promise<void> {
    try {
      await this.limiter.consume(String(userId));
    } catch (error) {
      if (error instanceof RateLimiterRes) {
        throw tooManyRequests(VIDEO_TEXTS.rateLimited, Math.ceil(error.msBeforeNext / 1000));
      }
      throw error;
    }
  }
}
