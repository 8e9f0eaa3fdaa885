import path from 'node:path';
import { ImageProxyEnvSchema, loadImageProxyConfig } from '@server/core/artwork/image-proxy-config';
import { LOG_FORMATS, LOG_LEVELS, logFormatFor } from '@server/core/logger';
import { loadMediaSettings, MediaEnvSchema } from '@server/core/media';
import { loadMetricsConfig } from '@server/core/metrics/metrics-server';
import { loadPushSettings } from '@server/core/notifications/push-settings';
import { loadRedisSettings } from '@server/core/redis/redis-settings';
import { REPORT_RETENTION_DAYS } from '@server/core/reports/retention';
import { parseSettings } from '@server/core/settings';
import { loadSpotifyConfig } from '@server/core/spotify/spotify-config';
import { QUEUES } from '@shared/index';
import { z } from 'zod';
import { loadVideoProviderConfig } from './videos/provider-config';

type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
const QUEUE_NAMES = Object.values(QUEUES) as QueueName[];

/** How many jobs of each queue one worker process runs at once, unless WORKER_CONCURRENCY_<QUEUE> says otherwise. */
// Video jobs run ffmpeg, which uses every core: one at a time per worker process.
// Pushes mostly wait on the push services' answers: many at once.
const DEFAULT_CONCURRENCY: Record<QueueName, number> = { media: 2, sync: 4, matching: 2, video: 1, push: 8 };

const concurrency = z.coerce.number().int().min(1).max(64);

const EnvSchema = z.object({
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url(),
  /** Where pictures and avatars are stored (docs/media.md): `local` = files under MEDIA_DIR, `s3` = a bucket (S3_*). */
  MEDIA_DRIVER: MediaEnvSchema.shape.MEDIA_DRIVER,
  MEDIA_DIR: z.string().default('.data/media'),
  /** The queues this process serves (its role), comma-separated; all of them when unset. */
  WORKER_QUEUES: z
    .string()
    .default(QUEUE_NAMES.join(','))
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((q) => q.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.enum(QUEUE_NAMES as [QueueName, ...QueueName[]])).min(1, 'name at least one queue')),
  WORKER_CONCURRENCY_MEDIA: concurrency.default(DEFAULT_CONCURRENCY.media),
  WORKER_CONCURRENCY_SYNC: concurrency.default(DEFAULT_CONCURRENCY.sync),
  WORKER_CONCURRENCY_MATCHING: concurrency.default(DEFAULT_CONCURRENCY.matching),
  WORKER_CONCURRENCY_VIDEO: concurrency.default(DEFAULT_CONCURRENCY.video),
  WORKER_CONCURRENCY_PUSH: concurrency.default(DEFAULT_CONCURRENCY.push),
  /** How long a job's lock lasts without renewal: a killed worker's job is picked up again after this. */
  WORKER_LOCK_SECONDS: z.coerce.number().min(1).max(600).default(30),
  /** Where video jobs keep their temporary files (deleted after each job, and at start for dead workers). */
  VIDEO_WORK_DIR: z.string().default('.data/video-work'),
  /** Whether demo people get generated intros in the background after seeding (docs/videos.md). */
  DEMO_VIDEOS: z.enum(['on', 'off']).default('on'),
  /** How often everyone's feed candidates are recomputed (rarity weights change as people join); 0 = never. */
  MATCHES_RECOMPUTE_EVERY_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(60),
  /** How often the freshness check runs (a full recompute when libraries changed since the model); 0 = never. */
  MATCHES_REFRESH_CHECK_SECONDS: z.coerce.number().min(0).max(86_400).default(15),
  /** How long reports and their kept messages are kept, in days (docs/privacy.md, "Reports"). */
  REPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(REPORT_RETENTION_DAYS),
  /** How often the workers of the sync queue delete expired reports; 0 = never. */
  REPORTS_EXPIRE_EVERY_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(6 * 60),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // Unset: JSON in production, readable lines elsewhere (docs/operations.md, "Logs").
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  FEED_FETCH_ALLOWED_IPS: z.string().default(''),
});

export type WorkerConfig = ReturnType<typeof loadWorkerConfig>;

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parseSettings(EnvSchema, env);
  const isProduction = (env.NODE_ENV ?? 'production') === 'production';
  // An allow-list past the SSRF protection is for tests and stand-ins, never a production setting.
  if (isProduction && e.FEED_FETCH_ALLOWED_IPS.trim() !== '') {
    throw new Error('Invalid configuration:\n  FEED_FETCH_ALLOWED_IPS: for development and tests only');
  }
  return {
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redis: loadRedisSettings(env),
    mediaDir: path.resolve(e.MEDIA_DIR),
    // The same settings in server and worker: both build the same store (core/media/media-config.ts).
    media: loadMediaSettings(env),
    /** This process's role: which queues it serves, and how many jobs of each at once. */
    queues: e.WORKER_QUEUES,
    concurrency: {
      media: e.WORKER_CONCURRENCY_MEDIA,
      sync: e.WORKER_CONCURRENCY_SYNC,
      matching: e.WORKER_CONCURRENCY_MATCHING,
      video: e.WORKER_CONCURRENCY_VIDEO,
      push: e.WORKER_CONCURRENCY_PUSH,
    } satisfies Record<QueueName, number>,
    lockMs: e.WORKER_LOCK_SECONDS * 1000,
    videoWorkDir: path.resolve(e.VIDEO_WORK_DIR),
    demoVideos: e.DEMO_VIDEOS === 'on',
    /** Who renders generated intros (docs/videos-provider.md). */
    videoProvider: loadVideoProviderConfig(env),
    imageProxy: loadImageProxyConfig(ImageProxyEnvSchema.parse(env), isProduction),
    /** Prometheus metrics on a port of their own (docs/operations.md, "Metrics"). */
    metrics: loadMetricsConfig(env, isProduction),
    /** VAPID keys and the push services pushes may go to (docs/notifications.md). */
    push: loadPushSettings(env, isProduction),
    recomputeAllEveryMs: e.MATCHES_RECOMPUTE_EVERY_MINUTES * 60_000,
    refreshCheckEveryMs: e.MATCHES_REFRESH_CHECK_SECONDS * 1000,
    reportRetentionDays: e.REPORT_RETENTION_DAYS,
    reportsExpireEveryMs: e.REPORTS_EXPIRE_EVERY_MINUTES * 60_000,
    logLevel: e.LOG_LEVEL,
    logFormat: logFormatFor(e.LOG_FORMAT, isProduction),
    // Checked at boot; the podcasts.sync handler reads the same SPOTIFY_* / TOKEN_ENCRYPTION_KEY.
    spotify: loadSpotifyConfig(env, {
      isProduction,
      port: Number(env.PORT ?? 5000) || 5000,
    }),
    /** Private/loopback addresses feed fetching may reach anyway (only for tests and stand-ins). */
    feedFetchAllowedIps: e.FEED_FETCH_ALLOWED_IPS.split(',')
      .map((ip) => ip.trim())
      .filter(Boolean),
  };
}
