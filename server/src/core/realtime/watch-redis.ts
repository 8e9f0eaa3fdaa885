import type { Redis } from 'ioredis';
import type { Logger } from '../logger';

/**
 * An 'error' listener on a Redis connection (without one, ioredis reports every failed reconnect as
 * an unhandled error event), logging the first failure and the return, not every retry.
 */
export function watchRedis(redis: Redis, name: string, logger: Logger): void {
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn(`${name}: Redis is not answering (${error.message}); retrying`);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info(`${name}: Redis is back`);
  });
}
