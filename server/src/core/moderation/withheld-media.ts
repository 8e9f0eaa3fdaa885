// A banned person's pictures and videos are no longer served (docs/moderation.md, "Ban"): their
// media keys sit in one Redis set that /media checks before answering; an undone ban takes them out.
// Files already in someone's browser cache stay there (they are cached for a year).
import type { Redis } from 'ioredis';
import { MEDIA_URL_PREFIX } from '../media/media-store';

const WITHHELD = 'media:withheld';

const keysOf = (urls: string[]) =>
  urls.filter((url) => url.startsWith(MEDIA_URL_PREFIX)).map((url) => url.slice(MEDIA_URL_PREFIX.length));

export async function withhold(redis: Redis, urls: string[]): Promise<void> {
  const keys = keysOf(urls);
  if (keys.length > 0) await redis.sadd(WITHHELD, ...keys);
}

export async function release(redis: Redis, urls: string[]): Promise<void> {
  const keys = keysOf(urls);
  if (keys.length > 0) await redis.srem(WITHHELD, ...keys);
}

/** Whether this media key is withheld; a Redis that does not answer withholds nothing (media keeps working). */
export async function isWithheld(redis: Redis, key: string): Promise<boolean> {
  try {
    return (await redis.sismember(WITHHELD, key)) === 1;
  } catch {
    return false;
  }
}
