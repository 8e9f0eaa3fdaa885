import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ImageProxyEnvSchema, loadImageProxyConfig } from './core/artwork/image-proxy-config';
import { loadAtprotoConfig } from './core/bluesky/bluesky-config';
import { LOG_FORMATS, LOG_LEVELS, logFormatFor } from './core/logger';
import { DEFAULT_DEMO_REPLY_DELAY, parseDelayRange } from './core/matches/demo-replies';
import { loadMediaSettings, MediaEnvSchema } from './core/media';
import { loadMetricsConfig } from './core/metrics/metrics-server';
import { loadPushSettings } from './core/notifications/push-settings';
import { loadRedisSettings } from './core/redis/redis-settings';
import { parseSettings } from './core/settings';
import { loadSpotifyConfig } from './core/spotify/spotify-config';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const EnvSchema = ImageProxyEnvSchema.extend({
  // Unset means production: development conveniences (dev login) must be asked for explicitly.
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(5000),
  // Unset: loopback outside production (defaultHost below).
  HOST: z.string().trim().min(1).optional(),
  DATABASE_URL: z.string().url(),
  REDIS_URL: z.string().url(),
  ALLOW_DEV_LOGIN: bool.optional(),
  TOKEN_TTL_DAYS: z.coerce.number().positive().default(30),
  TOKEN_ROTATE_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  TOKEN_ROTATION_GRACE_SECONDS: z.coerce.number().int().min(0).default(120),
  /** A login ends this many days after it began, however often its token was rotated. */
  TOKEN_MAX_LIFETIME_DAYS: z.coerce.number().positive().default(90),
  // Where pictures and avatars are stored (docs/media.md): `local` = files under MEDIA_DIR, `s3` = a bucket (S3_*).
  MEDIA_DRIVER: MediaEnvSchema.shape.MEDIA_DRIVER,
  MEDIA_DIR: z.string().default('.data/media'),
  CLIENT_DIST_DIR: z.string().default('client/dist'),
  // Where video uploads are written while they arrive (docs/videos.md): made private (0700) at start.
  UPLOAD_TEMP_DIR: z.string().default(path.join(os.tmpdir(), 'podmatch-video-uploads')),
  /**
   * Which proxies' X-Forwarded-For to believe: none (default), a hop count (the load balancers in
   * front, e.g. 1), or their addresses/subnets, comma-separated. Never "true" (anyone could then
   * claim any address in the header).
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value, ctx): false | number | string[] => {
      const text = value.trim().toLowerCase();
      if (text === '' || text === 'false' || text === '0' || text === 'no') return false;
      if (text === 'true' || text === 'yes') {
        ctx.addIssue({
          code: 'custom',
          message:
            'trusting every proxy lets anyone forge X-Forwarded-For; give the hop count (e.g. 1) or the proxy addresses',
        });
        return false;
      }
      if (/^\d+$/.test(text)) {
        const hops = Number(text);
        if (hops > 10) ctx.addIssue({ code: 'custom', message: 'at most 10 proxy hops' });
        return hops;
      }
      const list = text
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      const named = ['loopback', 'linklocal', 'uniquelocal'];
      for (const item of list) {
        const [address, bits] = item.split('/');
        const valid =
          named.includes(item) ||
          (net.isIP(address ?? '') !== 0 && (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= 128)));
        if (!valid) ctx.addIssue({ code: 'custom', message: `not an address, subnet or hop count: ${item}` });
      }
      return list;
    }),
  // Development and tests only (refused in production): feed hosts an OPML import may name on any
  // port, as the worker's FEED_FETCH_ALLOWED_IPS lets it read them (local test feeds).
  FEED_FETCH_ALLOWED_IPS: z.string().default(''),
  // The origin people browse (also the Bluesky client's, docs/bluesky.md); the page's CSP names its
  // WebSocket origin (http/content-security-policy.ts). Unset: taken from each request's Host.
  PUBLIC_URL: z
    .string()
    .url()
    .refine(
      (text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol),
      'an http(s) URL, e.g. https://podmatch.example',
    )
    .optional(),
  // Email codes (docs/auth.md): an SMTP server's URL (smtp:// or smtps://user:pass@host:port). Unset
  // outside production: messages are written under MAIL_DIR and shown at /dev/mail instead.
  SMTP_URL: z
    .string()
    .url()
    .refine((text) => URL.canParse(text) && /^smtps?:$/.test(new URL(text).protocol), 'an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().trim().min(3).default('PodMatch <no-reply@podmatch.local>'),
  MAIL_DIR: z.string().default('.data/mail'),
  // Operators who send it in X-Health-Token see /api/health's details from anywhere (docs/operations.md).
  HEALTH_TOKEN: z.string().min(24, 'use at least 24 random characters').optional(),
  // On SIGTERM, how long readiness answers 503 while the instance still serves, so the load balancer
  // stops sending it new requests before it closes. Unset: 5 s in production (HAProxy notices in 4),
  // none elsewhere (docs/operations.md, "Rolling out a new version").
  DRAIN_NOTICE_SECONDS: z.coerce.number().min(0).max(60).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  // Unset: JSON in production, readable lines elsewhere (docs/operations.md, "Logs").
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  // Chat sends per person (REST and socket together, counted across servers in Redis).
  CHAT_SEND_LIMIT: z.coerce.number().int().positive().default(30),
  CHAT_SEND_WINDOW_SECONDS: z.coerce.number().int().positive().default(10),
  // Multiplies every rate limit's allowance (docs/security.md); the test suites raise it.
  RATE_LIMIT_SCALE: z.coerce.number().positive().max(100_000).default(1),
  // How long a demo person takes to answer a like: "min-max" or "n" seconds (docs/matches.md).
  DEMO_REPLY_DELAY_SECONDS: z
    .string()
    .default(DEFAULT_DEMO_REPLY_DELAY)
    .transform((text, ctx) => {
      const range = parseDelayRange(text);
      if (!range) ctx.addIssue({ code: 'custom', message: 'use "min-max" or "n" seconds, e.g. 20-180' });
      return range ?? { minMs: 0, maxMs: 0 };
    }),
});

export type AppConfig = ReturnType<typeof loadConfig>;

/**
 * Where a server (or HAProxy in `npm start`'s multi-instance mode) listens when HOST is unset: every interface in
 * production, this machine only otherwise, since development and test mode turn dev login on and
 * anyone who could reach the port could then sign in as anyone.
 */
export function defaultHost(nodeEnv: string | undefined): string {
  return (nodeEnv ?? 'production') === 'production' ? '0.0.0.0' : '127.0.0.1';
}

const devLoginOn = (e: { NODE_ENV: string; ALLOW_DEV_LOGIN?: boolean | undefined }) =>
  e.ALLOW_DEV_LOGIN ?? (e.NODE_ENV === 'development' || e.NODE_ENV === 'test');

/** HOST and whether dev login is on, for the launcher's HAProxy (scripts/start.ts). */
export function loadListenSettings(env: NodeJS.ProcessEnv): { host: string; allowDevLogin: boolean } {
  const e = parseSettings(EnvSchema.pick({ NODE_ENV: true, HOST: true, ALLOW_DEV_LOGIN: true }), env);
  return { host: e.HOST ?? defaultHost(e.NODE_ENV), allowDevLogin: devLoginOn(e) };
}

/** A listen address only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h === '::1') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  // An IPv4-mapped IPv6 loopback address (::ffff:127.0.0.1).
  return /^::ffff:127\./.test(h);
}

/** The warning for an operator who bound dev login to other machines' reach (HOST), or null. */
export function exposedDevLoginWarning(host: string, allowDevLogin: boolean): string | null {
  if (!allowDevLogin || isLoopbackHost(host)) return null;
  return `dev login is on and HOST=${host} lets other machines reach it: anyone there can sign in as anyone. Use HOST=127.0.0.1, or NODE_ENV=production.`;
}

/** Reads and checks the environment once; a bad setting stops the process with a clear message. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parseSettings(EnvSchema, env);
  const isProduction = e.NODE_ENV === 'production';
  if (isProduction && e.FEED_FETCH_ALLOWED_IPS.trim() !== '') {
    throw new Error('Invalid configuration:\n  FEED_FETCH_ALLOWED_IPS: for development and tests only');
  }
  const spotify = loadSpotifyConfig(env, { isProduction, port: e.PORT });
  return {
    env: e.NODE_ENV,
    isProduction,
    port: e.PORT,
    host: e.HOST ?? defaultHost(e.NODE_ENV),
    // Dev login fails closed: on only when the process is explicitly in development (or test) mode,
    // as `npm start` sets it, or when ALLOW_DEV_LOGIN=true says so.
    allowDevLogin: devLoginOn(e),
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    // REDIS_URL, or the primary the sentinels name (REDIS_SENTINELS; core/redis/redis-settings.ts).
    redis: loadRedisSettings(env),
    tokenTtlMs: e.TOKEN_TTL_DAYS * 24 * 3600 * 1000,
    tokenRotateAfterMs: e.TOKEN_ROTATE_AFTER_SECONDS * 1000,
    tokenRotationGraceMs: e.TOKEN_ROTATION_GRACE_SECONDS * 1000,
    tokenMaxLifetimeMs: e.TOKEN_MAX_LIFETIME_DAYS * 24 * 3600 * 1000,
    mediaDir: path.resolve(e.MEDIA_DIR),
    // The same settings in server and worker: both build the same store (core/media/media-config.ts).
    media: loadMediaSettings(env),
    clientDistDir: path.resolve(e.CLIENT_DIST_DIR),
    uploadTempDir: path.resolve(e.UPLOAD_TEMP_DIR),
    trustProxy: e.TRUST_PROXY,
    /** scheme://host[:port] of PUBLIC_URL, or undefined. */
    publicOrigin: e.PUBLIC_URL ? new URL(e.PUBLIC_URL).origin : undefined,
    healthToken: e.HEALTH_TOKEN,
    drainNoticeMs: (e.DRAIN_NOTICE_SECONDS ?? (isProduction ? 5 : 0)) * 1000,
    /**
     * Email codes (docs/auth.md): through SMTP when SMTP_URL is set; outside production without it,
     * into a local mailbox (.eml files under `devMailDir`, listed at /dev/mail); off otherwise.
     */
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      devMailDir: e.SMTP_URL || isProduction ? undefined : path.resolve(e.MAIL_DIR),
    },
    /**
     * Passkeys (WebAuthn, docs/auth.md): the relying party is PUBLIC_URL's host and its origin the
     * only one accepted. Without PUBLIC_URL, outside production only, each request's own origin.
     */
    passkeys: e.PUBLIC_URL
      ? { rpName: 'PodMatch', rpId: new URL(e.PUBLIC_URL).hostname, origin: new URL(e.PUBLIC_URL).origin }
      : isProduction
        ? null
        : { rpName: 'PodMatch', rpId: undefined, origin: undefined },
    feedFetchAllowedIps: e.FEED_FETCH_ALLOWED_IPS.split(',')
      .map((ip) => ip.trim())
      .filter(Boolean),
    logLevel: e.LOG_LEVEL,
    logFormat: logFormatFor(e.LOG_FORMAT, isProduction),
    /** At most `limit` messages per person per `windowSeconds` (docs/chat.md, rate limiting). */
    chatSendLimit: { limit: e.CHAT_SEND_LIMIT, windowSeconds: e.CHAT_SEND_WINDOW_SECONDS },
    /** Allowances of http/rate-limits.ts multiplied by this (1 unless RATE_LIMIT_SCALE says otherwise). */
    rateLimitScale: e.RATE_LIMIT_SCALE,
    /** When a demo person (other than SPEC's one) answers a like (docs/matches.md, "Demo people"). */
    demoReplyDelay: e.DEMO_REPLY_DELAY_SECONDS,
    // --- Image proxy (docs/image-proxy.md) ---
    imageProxy: loadImageProxyConfig(e, isProduction),
    /** Prometheus metrics on a port of their own (docs/operations.md, "Metrics"). */
    metrics: loadMetricsConfig(env, isProduction),
    // SPOTIFY_* and TOKEN_ENCRYPTION_KEY (see .env.example and docs/spotify.md).
    spotify,
    // PUBLIC_URL, ATPROTO_* (docs/bluesky.md); its tokens use TOKEN_ENCRYPTION_KEY too.
    bluesky: loadBlueskyConfig(env, { isProduction, port: e.PORT }),
    /** The key of every secret at rest (TOKEN_ENCRYPTION_KEY, core/crypto): Spotify's and Bluesky's. */
    tokenKey: spotify.tokenKey,
    /** VAPID keys and the push services endpoints may name (docs/notifications.md). */
    push: loadPushSettings(env, isProduction),
  };
}

/** A Bluesky link that can work needs a key that survives restarts and is shared by every instance. */
function loadBlueskyConfig(env: NodeJS.ProcessEnv, options: { isProduction: boolean; port: number }) {
  const config = loadAtprotoConfig(env, options);
  if (config.client.kind === 'web' && !env.TOKEN_ENCRYPTION_KEY?.trim()) {
    throw new Error(
      'Invalid configuration:\n  TOKEN_ENCRYPTION_KEY: required with an https PUBLIC_URL (Bluesky tokens are encrypted with it)',
    );
  }
  return config;
}
