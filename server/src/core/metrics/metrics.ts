// Prometheus metrics (docs/operations.md, "Metrics"), with prom-client: one registry per server or
// worker process (tests run several in one process), served on a port of its own (metrics-server.ts).
// Gauges that describe shared state (queue depth, outbox lag) are read when Prometheus scrapes, so
// every instance reports the same value; counters and histograms are this instance's own.
import type { MikroORM } from '@mikro-orm/postgresql';
import { QUEUES } from '@shared/index';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { sql } from '../db/sql';

/** Request and job durations, in seconds: from a cache hit to a slow render's tail. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
// `prioritized`: jobs queued with a priority (background demo intros) wait there, not in `waiting`.
const QUEUE_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;
/** A scrape never waits longer than this for Redis or the database (both may be away: then no value). */
const COLLECT_TIMEOUT_MS = 2000;

/** `work`, or undefined when it fails or takes longer than COLLECT_TIMEOUT_MS. */
async function withinTimeout<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), COLLECT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface BaseMetrics {
  registry: Registry;
  /** Stops the queue handles the scrape uses. */
  close(): Promise<void>;
}

/**
 * What every process reports: the runtime (event-loop lag, memory, CPU; only when the metrics are
 * served, since its monitors cannot be stopped), its pool, the queues and the outbox.
 */
function baseMetrics(service: 'server' | 'worker', orm: MikroORM, connection: Redis, served: boolean): BaseMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (served) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const pool = () =>
    (
      orm.em.getConnection().getKnex().client as {
        pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number };
      }
    ).pool;
  new Gauge({
    name: 'podmatch_db_pool_connections',
    help: 'Database connections of this process: in use, idle, and requests waiting for one.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const p = pool();
      this.set({ state: 'used' }, p?.numUsed() ?? 0);
      this.set({ state: 'free' }, p?.numFree() ?? 0);
      this.set({ state: 'pending' }, p?.numPendingAcquires() ?? 0);
    },
  });

  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection }));
  for (const queue of queues) queue.on('error', () => undefined);
  new Gauge({
    name: 'podmatch_queue_jobs',
    help: 'Jobs in each queue by state (shared: every instance reports the same).',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const queue of queues) {
        const counts = await withinTimeout(queue.getJobCounts(...QUEUE_STATES));
        if (!counts) continue;
        for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });

  // One query a scrape for both outbox gauges: the second collect shares the first one's answer.
  let outboxRead: Promise<{ jobs: number; lag: number | null } | undefined> | undefined;
  const outbox = () => {
    outboxRead ??= withinTimeout(
      sql<{ jobs: number; lag: number | null }>(
        orm.em.fork(),
        'select count(*)::int as jobs, extract(epoch from now() - min(created_at))::float8 as lag from job_outbox',
      ),
    )
      .then((rows) => rows?.[0])
      .finally(() => {
        outboxRead = undefined;
      });
    return outboxRead;
  };
  new Gauge({
    name: 'podmatch_outbox_lag_seconds',
    help: 'Age of the oldest job staged in the outbox and not yet handed to Redis (0 when none).',
    registers: [registry],
    async collect() {
      this.set((await outbox())?.lag ?? 0);
    },
  });
  new Gauge({
    name: 'podmatch_outbox_jobs',
    help: 'Jobs staged in the outbox and not yet handed to Redis.',
    registers: [registry],
    async collect() {
      this.set((await outbox())?.jobs ?? 0);
    },
  });

  return {
    registry,
    async close() {
      await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    },
  };
}

export interface ServerMetrics extends BaseMetrics {
  /** One answered HTTP request; `route` is the contract's path template (never ids). */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One chat message stored (not a repeated send). */
  messageStored(): void;
}

export function createServerMetrics(
  orm: MikroORM,
  connection: Redis,
  sockets: () => number,
  { served }: { served: boolean },
): ServerMetrics {
  const base = baseMetrics('server', orm, connection, served);
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [base.registry],
  });
  const messages = new Counter({
    name: 'podmatch_chat_messages_total',
    help: 'Chat messages stored by this instance.',
    registers: [base.registry],
  });
  new Gauge({
    name: 'podmatch_socket_connections',
    help: 'Socket.IO connections open on this instance.',
    registers: [base.registry],
    collect() {
      this.set(sockets());
    },
  });
  return {
    ...base,
    request: (method, route, status, seconds) => duration.observe({ method, route, status: String(status) }, seconds),
    messageStored: () => messages.inc(),
  };
}

export interface WorkerMetrics extends BaseMetrics {
  /** A job this worker finished: how long it waited in the queue and how long it ran. */
  jobFinished(queue: string, outcome: 'completed' | 'failed', waitSeconds: number, runSeconds: number): void;
}

export function createWorkerMetrics(orm: MikroORM, connection: Redis, { served }: { served: boolean }): WorkerMetrics {
  const base = baseMetrics('worker', orm, connection, served);
  const wait = new Histogram({
    name: 'podmatch_job_wait_seconds',
    help: 'Time from when a job could run (its delay over) until a worker took it, by queue.',
    labelNames: ['queue'],
    buckets: DURATION_BUCKETS,
    registers: [base.registry],
  });
  const run = new Histogram({
    name: 'podmatch_job_processing_seconds',
    help: 'Time a worker spent on a job, by queue and outcome.',
    labelNames: ['queue', 'outcome'],
    buckets: DURATION_BUCKETS,
    registers: [base.registry],
  });
  return {
    ...base,
    jobFinished(queue, outcome, waitSeconds, runSeconds) {
      wait.observe({ queue }, Math.max(0, waitSeconds));
      run.observe({ queue, outcome }, Math.max(0, runSeconds));
    },
  };
}
