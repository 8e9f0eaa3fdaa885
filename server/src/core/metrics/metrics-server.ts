// The metrics endpoint (docs/operations.md, "Metrics"): GET /metrics on a port of its own, never the
// app's public port, so the load balancer never exposes it; with METRICS_TOKEN, only a scraper that
// sends `Authorization: Bearer <token>` is answered.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { z } from 'zod';
import type { Logger } from '../logger';
import { parseSettings } from '../settings';
import type { BaseMetrics } from './metrics';

export const MetricsEnvSchema = z.object({
  /** Unset: no metrics endpoint. 0: any free port (tests). */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /** Unset: the loopback address outside production, every interface in production (a private network). */
  METRICS_HOST: z.string().trim().min(1).optional(),
  METRICS_TOKEN: z.string().min(24, 'use at least 24 random characters').optional(),
});

export type MetricsConfig = ReturnType<typeof loadMetricsConfig>;

export function loadMetricsConfig(env: NodeJS.ProcessEnv, isProduction: boolean) {
  const e = parseSettings(MetricsEnvSchema, env);
  const host = e.METRICS_HOST ?? (isProduction ? '0.0.0.0' : '127.0.0.1');
  // Metrics tell an attacker load, queue sizes and timings: reachable from other machines only with a token.
  if (isProduction && e.METRICS_PORT !== undefined && !e.METRICS_TOKEN && !isLoopback(host)) {
    throw new Error(
      'Invalid configuration:\n  METRICS_TOKEN: set one (24+ random characters) or METRICS_HOST=127.0.0.1',
    );
  }
  return { port: e.METRICS_PORT, host, token: e.METRICS_TOKEN };
}

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');

const digest = (text: string) => createHash('sha256').update(text).digest();

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `metrics` when a port is configured; undefined otherwise. */
export async function serveMetrics(
  metrics: BaseMetrics,
  config: MetricsConfig,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  if (config.port === undefined) return undefined;
  const expected = config.token ? digest(`Bearer ${config.token}`) : undefined;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at /metrics.\n');
      return;
    }
    if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('Send the metrics token as a Bearer token.\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (error: unknown) => {
        logger.warn(`metrics: ${(error as Error).message}`);
        res.writeHead(500, { 'content-type': 'text/plain' }).end('The metrics could not be read.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(`metrics on http://${config.host}:${port}/metrics`);
  return {
    url: `http://127.0.0.1:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
