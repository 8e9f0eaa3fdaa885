import { createHash, timingSafeEqual } from 'node:crypto';
import { api, type HealthResponse, WORKER_HEARTBEAT } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { mount } from '../../http/route';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Details (latencies, worker count, version, uptime) help an attacker time attacks and fingerprint
 * the deployment: only a request made on this machine (not relayed by a proxy) or one carrying
 * HEALTH_TOKEN sees them.
 */
function isOperator(req: Request, healthToken: string | undefined): boolean {
  const offered = req.get('x-health-token');
  if (healthToken && offered) return timingSafeEqual(digest(offered), digest(healthToken));
  const relayed = req.get('x-forwarded-for') !== undefined || req.get('forwarded') !== undefined;
  return !relayed && LOOPBACK.has(req.socket.remoteAddress ?? '');
}

const started = Date.now();

async function timed<T>(
  check: () => Promise<T>,
): Promise<{ ok: boolean; latencyMs: number; detail?: string; value?: T }> {
  const t0 = performance.now();
  try {
    const value = await check();
    return { ok: true, latencyMs: Math.round((performance.now() - t0) * 10) / 10, value };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - t0), detail: (error as Error).message };
  }
}

/** Public: whether the database, Redis and at least one worker are alive; the parts to operators. */
export function healthRoutes(deps: AppDeps): Router {
  const router = Router();
  mount(router, api.health, async ({ req, res }) => {
    const [database, redis, workers] = await Promise.all([
      timed(async () => {
        const check = await deps.orm.checkConnection();
        if (!check.ok) throw check.error ?? new Error(check.reason);
      }),
      timed(() => deps.redis.ping()),
      timed(() => deps.redis.zcount(WORKER_HEARTBEAT.key, Date.now(), '+inf')),
    ]);
    const workerCount = workers.value ?? 0;
    const body: HealthResponse = {
      ok: database.ok && redis.ok && workerCount > 0,
      database: {
        ok: database.ok,
        latencyMs: database.latencyMs,
        ...(database.detail ? { detail: 'unreachable' } : {}),
      },
      redis: { ok: redis.ok, latencyMs: redis.latencyMs, ...(redis.detail ? { detail: 'unreachable' } : {}) },
      worker: {
        ok: workerCount > 0,
        workers: workerCount,
        ...(workerCount === 0 ? { detail: 'no worker heartbeat in the last 15 s' } : {}),
      },
      version: process.env.npm_package_version ?? '0.1.0',
      uptimeSeconds: Math.round((Date.now() - started) / 1000),
    };
    res.setHeader('Cache-Control', 'no-store');
    if (!body.ok) res.status(503);
    return isOperator(req, deps.config.healthToken) ? body : { ok: body.ok };
  });
  mount(router, api.healthLive, async ({ res }) => {
    res.setHeader('Cache-Control', 'no-store');
    return { ok: true };
  });
  // Not ready only while draining (shutting down), so no new request is sent to it. The database,
  // Redis and the workers are shared by every instance: were they asked here, an outage would take
  // every instance out of the load balancer at once, and the app answers such outages better itself
  // (sends are stored without Redis, a database outage is a 503 with Retry-After; /api/health shows them).
  mount(router, api.healthReady, async ({ res }) => {
    res.setHeader('Cache-Control', 'no-store');
    if (deps.lifecycle.draining) res.status(503);
    return { ok: !deps.lifecycle.draining };
  });
  return router;
}
