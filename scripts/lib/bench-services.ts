// The PostgreSQL cluster and Redis a benchmark or the evaluation runs against: its own local stack
// under its data directory, or the services named by BENCH_POSTGRES (a cluster's base URL, ending
// in '/'; the script creates its own database there) and BENCH_REDIS (a Redis URL with the database
// number the script may use and empty). `npm test`'s smoke tier passes the services it started.
import { randomBytes } from 'node:crypto';
import { type LocalStack, type LocalStackOptions, startLocalStack } from './local-stack';

export async function benchServices(options: LocalStackOptions): Promise<LocalStack> {
  const postgresBaseUrl = process.env.BENCH_POSTGRES;
  const redisUrl = process.env.BENCH_REDIS;
  if (!postgresBaseUrl && !redisUrl) return startLocalStack(options);
  if (!postgresBaseUrl || !redisUrl) throw new Error('Set both BENCH_POSTGRES and BENCH_REDIS, or neither.');
  const base = postgresBaseUrl.endsWith('/') ? postgresBaseUrl : `${postgresBaseUrl}/`;
  options.log(`using the services of BENCH_POSTGRES and BENCH_REDIS (${redisUrl.replace(/\/\/[^@]*@/, '//')})`);
  return {
    databaseUrl: `${base}${options.database}`,
    postgresBaseUrl: base,
    redisUrl,
    // Not ours: whoever started them stops them.
    stop: async () => {},
  };
}

/**
 * The environment of a script's own server and worker: development on a free loopback port, these
 * services and media directory, warnings only, no scheduled full recompute (its runs would weigh on
 * the figures), and a fresh image proxy signing key (docs/image-proxy.md). `extra` adds or overrides.
 */
export function benchAppEnv(
  services: { databaseUrl: string; redisUrl: string; mediaDir: string },
  extra: Record<string, string> = {},
) {
  return {
    ...process.env,
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: services.databaseUrl,
    REDIS_URL: services.redisUrl,
    MEDIA_DIR: services.mediaDir,
    LOG_LEVEL: 'warn' as const,
    MATCHES_RECOMPUTE_EVERY_MINUTES: '0',
    IMAGE_PROXY_KEY: randomBytes(32).toString('base64'),
    ...extra,
  };
}
