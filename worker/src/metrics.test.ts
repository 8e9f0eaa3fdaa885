// Prometheus metrics (docs/operations.md, "Metrics"): a server and a worker, each with METRICS_PORT,
// scraped before and after some traffic (requests, a socket, a chat message, a job): every listed
// series is there with real values, and the counters move. The token, when set, is required.

import fs from 'node:fs';
import path from 'node:path';
import { JobQueue } from '@server/core/jobs/job-queue';
import { createLogger } from '@server/core/logger';
import { loadMetricsConfig } from '@server/core/metrics/metrics-server';
import { mutualPair, sendRest } from '@server/test/chat-flow';
import { startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config';
import { type RunningWorker, startWorker } from './worker';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample (`name{labels}`), summed over the series whose labels contain `having`. */
function sample(text: string, name: string, having: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const line of text.split('\n')) {
    const match = line.match(/^([a-zA-Z_:][\w:]*)(\{[^}]*\})? ([-+\deE.]+|NaN)$/);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(having).some(([k, v]) => labels[k] !== v)) continue;
    found = true;
    total += Number(match[3]);
  }
  if (!found) throw new Error(`no sample ${name} ${JSON.stringify(having)}`);
  return total;
}

describe('metrics', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let redis: Redis;
  const scrape = async (url: string | undefined) => {
    const res = await fetch(url ?? 'http://127.0.0.1:9/metrics', {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  beforeAll(async () => {
    server = await startTestServer({ METRICS_PORT: '0', METRICS_TOKEN });
    worker = await startWorker(
      loadWorkerConfig(testEnv({ METRICS_PORT: '0', METRICS_TOKEN, WORKER_QUEUES: 'sync' })),
      createLogger('worker', 'silent'),
    );
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    redis.disconnect();
    await worker?.close();
    await server?.close();
  });

  it('refuses a scrape without the token, and is not on the public port', async () => {
    expect((await fetch(server.running.metricsUrl as string)).status).toBe(401);
    const wrong = await fetch(server.running.metricsUrl as string, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect((await server.call('GET', '/metrics')).text).not.toContain('http_request_duration_seconds');
  });

  it("the server's series: requests by route template and status, sockets, messages, pool, queues, outbox, event loop", async () => {
    const before = await scrape(server.running.metricsUrl);
    const { a, b, matchId } = await mutualPair(server);
    const socket = await server.socket(b.token);
    expect((await sendRest(server, a, matchId, 'Counted once')).status).toBe(201);
    expect((await server.call('GET', `/api/users/${a.id}/matches?intent=romantic`, { token: a.token })).status).toBe(
      200,
    );
    expect((await server.call('GET', '/api/users/999999999', { token: a.token })).status).toBe(404);
    const after = await scrape(server.running.metricsUrl);
    socket.disconnect();

    const route = '/api/users/:userId/matches';
    const count = (text: string, labels: Record<string, string>) => {
      try {
        return sample(text, 'http_request_duration_seconds_count', labels);
      } catch {
        return 0;
      }
    };
    expect(count(after, { route, status: '200' })).toBe(count(before, { route, status: '200' }) + 1);
    expect(count(after, { route: '/api/users/:userId', status: '404' })).toBeGreaterThanOrEqual(1);
    // Ids never become labels.
    expect(after).not.toMatch(new RegExp(`route="[^"]*/${a.id}[/"]`));
    expect(sample(after, 'podmatch_chat_messages_total')).toBe(sample(before, 'podmatch_chat_messages_total') + 1);
    expect(sample(after, 'podmatch_socket_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'podmatch_db_pool_connections', { state: 'free' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'podmatch_queue_jobs', { queue: 'sync', state: 'waiting' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'podmatch_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(after).toContain('service="server"');
  });

  it("the worker's series: wait and processing time per queue, queue depth, pool, event loop", async () => {
    const before = await scrape(worker.metricsUrl);
    const processed = (text: string) => {
      try {
        return sample(text, 'podmatch_job_processing_seconds_count', { queue: 'sync', outcome: 'completed' });
      } catch {
        return 0;
      }
    };
    const jobs = new JobQueue(redis);
    await jobs.enqueue('reportsExpire', { olderThanDays: 30 });
    const after = await until(
      async () => {
        const text = await scrape(worker.metricsUrl);
        return processed(text) > processed(before) ? text : null;
      },
      'the job to be counted',
      20_000,
    );
    await jobs.close();
    expect(sample(after, 'podmatch_job_wait_seconds_count', { queue: 'sync' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'podmatch_job_processing_seconds_sum', { queue: 'sync' })).toBeGreaterThan(0);
    expect(sample(after, 'podmatch_queue_jobs', { queue: 'video', state: 'waiting' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'podmatch_queue_jobs', { queue: 'video', state: 'prioritized' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'podmatch_db_pool_connections', { state: 'used' })).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(after).toContain('service="worker"');
  });

  it('the dashboard and the alert rules ask only for series the app exports (or the exporters named there)', async () => {
    const exported = new Set<string>();
    for (const text of [await scrape(server.running.metricsUrl), await scrape(worker.metricsUrl)]) {
      for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(name as string);
        if (type === 'histogram') for (const end of ['_bucket', '_count', '_sum']) exported.add(`${name}${end}`);
      }
    }
    // Replication lag comes from postgres_exporter and redis_exporter (deploy/prometheus/alerts.yml).
    const external = new Set(['pg_replication_lag_seconds', 'redis_connected_slave_lag_seconds']);
    const deploy = (file: string) => fs.readFileSync(path.join(process.cwd(), 'deploy', file), 'utf8');
    const dashboard = JSON.parse(deploy('grafana/podmatch-dashboard.json')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const expressions = [
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
      ...[...deploy('prometheus/alerts.yml').matchAll(/expr: (\|[\s\S]*?)(?=\n\s+for:)/g)].map((m) => m[1] as string),
    ];
    expect(expressions.length).toBeGreaterThan(15);
    const asked = new Set(
      expressions.flatMap((e) => e.match(/\b(?:podmatch|http|nodejs|process|pg|redis)_[a-z0-9_]+/g) ?? []),
    );
    const missing = [...asked].filter((name) => !exported.has(name) && !external.has(name));
    expect(missing).toEqual([]);
  });

  it('in production, metrics reachable from other machines need a token', () => {
    expect(() => loadMetricsConfig({ METRICS_PORT: '9100' }, true)).toThrow(/METRICS_TOKEN/);
    expect(loadMetricsConfig({ METRICS_PORT: '9100', METRICS_TOKEN }, true)).toMatchObject({ host: '0.0.0.0' });
    expect(loadMetricsConfig({ METRICS_PORT: '9100', METRICS_HOST: '127.0.0.1' }, true).token).toBeUndefined();
    expect(loadMetricsConfig({}, true).port).toBeUndefined();
    expect(() => loadMetricsConfig({ METRICS_PORT: '9100', METRICS_TOKEN: 'short' }, true)).toThrow(/24 random/);
  });
});
