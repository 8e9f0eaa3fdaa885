// How servers, workers and one-shot commands reach Redis (docs/operations.md, "Redis that survives
// losing its primary"): REDIS_URL alone, or through Redis Sentinel when REDIS_SENTINELS is set. With
// Sentinel, REDIS_URL's password, user and database number still apply; its host is not used: the
// sentinels name the primary, and ioredis asks them again whenever the connection is lost.
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';

export const RedisEnvSchema = z.object({
  REDIS_URL: z.string().url(),
  /** `host:port` of each sentinel, comma-separated; unset: REDIS_URL is the one Redis. */
  REDIS_SENTINELS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const parsed = list.map((entry) => {
        const match = /^([^\s:]+|\[[0-9a-f:]+\]):(\d{1,5})$/i.exec(entry);
        if (!match) ctx.addIssue({ code: 'custom', message: `"${entry}" is not host:port` });
        return { host: (match?.[1] ?? '').replace(/^\[|\]$/g, ''), port: Number(match?.[2]) };
      });
      return parsed;
    }),
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> ...`). */
  REDIS_SENTINEL_NAME: z.string().trim().min(1).default('podmatch'),
  /** The sentinels' own password, when they have one (`requirepass` in sentinel.conf). */
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
});

export interface RedisSettings {
  url: string;
  sentinels: { host: string; port: number }[];
  sentinelName: string;
  sentinelPassword?: string | undefined;
}

export function loadRedisSettings(env: NodeJS.ProcessEnv): RedisSettings {
  const parsed = RedisEnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  return {
    url: e.REDIS_URL,
    sentinels: e.REDIS_SENTINELS,
    sentinelName: e.REDIS_SENTINEL_NAME,
    sentinelPassword: e.REDIS_SENTINEL_PASSWORD || undefined,
  };
}

/** Settings of a plain REDIS_URL (tests and tools that have only a URL). */
export const redisAt = (url: string): RedisSettings => ({ url, sentinels: [], sentinelName: 'podmatch' });

/** A connection as the settings say; `options` as for `new Redis(...)` (retries, lazyConnect...). */
export function connectRedis(settings: RedisSettings, options: RedisOptions = {}): Redis {
  if (settings.sentinels.length === 0) return new Redis(settings.url, options);
  const url = new URL(settings.url);
  return new Redis({
    sentinels: settings.sentinels,
    name: settings.sentinelName,
    sentinelPassword: settings.sentinelPassword,
    username: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    db: Number(url.pathname.slice(1) || 0),
    // After a failover the old primary may come back as a replica while we still talk to it:
    // its "READONLY" answer means reconnect (and ask the sentinels) and send the command again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    ...options,
  });
}

/** Whether writes should be confirmed on a replica before they count (Sentinel: a failover may come). */
export const replicated = (settings: RedisSettings): boolean => settings.sentinels.length > 0;
