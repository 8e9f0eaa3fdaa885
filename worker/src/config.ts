import path from 'node:path';
import { loadSpotifyConfig } from '@server/core/spotify/spotify-config';
import { z } from 'zod';

const EnvSchema = z.object({
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url(),
  MEDIA_DIR: z.string().default('.data/media'),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  FEED_FETCH_ALLOWED_IPS: z.string().default(''),
});

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      `Invalid configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  }
  const e = parsed.data;
  return {
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    mediaDir: path.resolve(e.MEDIA_DIR),
    concurrency: e.WORKER_CONCURRENCY,
    logLevel: e.LOG_LEVEL,
    // Checked at boot; the podcasts.sync handler reads the same SPOTIFY_* / TOKEN_ENCRYPTION_KEY.
    spotify: loadSpotifyConfig(env, {
      isProduction: env.NODE_ENV === 'production',
      port: Number(env.PORT ?? 5000) || 5000,
    }),
    /** Private/loopback addresses feed fetching may reach anyway (only for tests and stand-ins). */
    feedFetchAllowedIps: e.FEED_FETCH_ALLOWED_IPS.split(',')
      .map((ip) => ip.trim())
      .filter(Boolean),
  };
}
