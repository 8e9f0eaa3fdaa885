// /api/health (docs/operations.md): everyone learns whether the app is up; only an operator on this
// machine, or one with HEALTH_TOKEN, sees latencies, worker count, version and uptime.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../scripts/lib/local-stack';
import { startTestServer, type TestServer, until } from '../../test/harness';
import { killRedisProcess, startRedisProcess } from '../../test/redis-process';

const HEALTH_TOKEN = 'operator-token-0123456789abcdef';

describe('GET /api/health', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ HEALTH_TOKEN, TRUST_PROXY: '1' });
  });
  afterAll(() => server.close());

  it('shows its parts to a request made on this machine', async () => {
    const res = await server.call('GET', '/api/health');
    expect([200, 503]).toContain(res.status);
    expect(res.json).toMatchObject({
      database: { ok: true },
      redis: { ok: true },
      worker: { workers: expect.any(Number) },
    });
    expect(res.json.uptimeSeconds).toEqual(expect.any(Number));
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers only ok to anyone relayed by a proxy, even one claiming a local address', async () => {
    for (const header of ['203.0.113.5', '127.0.0.1', '127.0.0.1, 127.0.0.1']) {
      const res = await server.call('GET', '/api/health', { headers: { 'x-forwarded-for': header } });
      expect(Object.keys(res.json)).toEqual(['ok']);
      expect(res.json.ok).toBe(res.status === 200);
    }
    const forwarded = await server.call('GET', '/api/health', { headers: { forwarded: 'for=127.0.0.1' } });
    expect(Object.keys(forwarded.json)).toEqual(['ok']);
  });

  it('shows the parts to a remote operator with the token, and nothing more for a wrong one', async () => {
    const remote = { 'x-forwarded-for': '203.0.113.5' };
    const right = await server.call('GET', '/api/health', { headers: { ...remote, 'x-health-token': HEALTH_TOKEN } });
    expect(right.json.database).toMatchObject({ ok: true });
    const wrong = await server.call('GET', '/api/health', {
      headers: { ...remote, 'x-health-token': `${HEALTH_TOKEN}x` },
    });
    expect(Object.keys(wrong.json)).toEqual(['ok']);
  });

  it('refuses a short HEALTH_TOKEN at startup', async () => {
    await expect(startTestServer({ HEALTH_TOKEN: 'short' })).rejects.toThrow(/HEALTH_TOKEN: use at least 24/);
  });
});

// Probes for containers and load balancers (docs/operations.md, "Health"): liveness says the process
// answers; readiness says this instance can serve (its database and Redis answer), workers or not.
describe('GET /api/health/live and /api/health/ready', () => {
  let redis: ChildProcess | undefined;
  let server: TestServer;
  let redisPort: number;
  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedisProcess(redisPort);
    server = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${redisPort}/0` });
  });
  afterAll(async () => {
    redis ??= await startRedisProcess(redisPort);
    await server.close();
    await killRedisProcess(redis);
  });

  it('are both 200 with no worker alive, where /api/health is 503', async () => {
    expect((await server.call('GET', '/api/health')).status).toBe(503);
    for (const probe of ['/api/health/live', '/api/health/ready']) {
      const res = await server.call('GET', probe);
      expect(res.status, probe).toBe(200);
      expect(res.json).toEqual({ ok: true });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('both stay 200 while Redis is away: shared services never take every instance out of the balancer', async () => {
    await killRedisProcess(redis);
    redis = undefined;
    await until(
      async () => (await server.call('GET', '/api/health')).json?.redis?.ok === false,
      '/api/health to see it',
    );
    expect((await server.call('GET', '/api/health/ready')).status).toBe(200);
    expect((await server.call('GET', '/api/health/live')).status).toBe(200);
    redis = await startRedisProcess(redisPort);
  });
});

// A rolling restart (docs/operations.md, "Rolling out a new version"): on shutdown the instance says
// it is not ready at once and still answers requests for the drain notice, then closes.
describe('draining', () => {
  it('readiness is 503 from the start of a shutdown while requests are still answered, then the server closes', async () => {
    const server = await startTestServer({ DRAIN_NOTICE_SECONDS: '1' });
    expect((await server.call('GET', '/api/health/ready')).status).toBe(200);
    const started = Date.now();
    const closing = server.close();
    const ready = await server.call('GET', '/api/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.json).toEqual({ ok: false });
    expect((await server.call('GET', '/api/auth/methods')).status).toBe(200);
    expect((await server.call('GET', '/api/health/live')).status).toBe(200);
    await closing;
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    await expect(fetch(`${server.url}/api/health/live`)).rejects.toThrow();
  });
});
