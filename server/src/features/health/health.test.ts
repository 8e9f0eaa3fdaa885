// /api/health (docs/operations.md): everyone learns whether the app is up; only an operator on this
// machine, or one with HEALTH_TOKEN, sees latencies, worker count, version and uptime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness';

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
