// Chat benchmark: N socket clients in matched pairs send messages at a fixed total rate through
// the full path (socket auth, access policy, persist in PostgreSQL, emit through Redis) with person
// A of each pair on one server instance and person B on another, so every message crosses
// instances; then the same load through a bare Socket.IO relay (same Redis adapter, no database) as
// the floor. Measures send-to-receive latency (the receiver's 'message:new'), lost and duplicated
// messages, failed acks and the servers' memory. Prints tables and, last, one JSON line; exits 1 if
// a target is missed. Usage: npm run bench:chat (docs/performance.md)
// Knobs: BENCH_CLIENTS=1000 BENCH_RATE=200 BENCH_SECONDS=30 BENCH_WARMUP_SECONDS=5
// BENCH_GRACE_SECONDS=5 BENCH_DRIVERS=1 BENCH_ONLY=relay (the relay path alone) BENCH_SERVER_NODE_ARGS
// BENCH_INSTANCES=1 (both people of each pair on one server instance, to compare with two)
// BENCH_LATENCY_TARGETS=off (report the latency targets without failing on them: npm test's tiny run
// on a busy machine); BENCH_POSTGRES / BENCH_REDIS: scripts/lib/bench-services.ts
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { initOrm, migrate } from '@server/core/db/orm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { benchServices } from '../lib/bench-services';
import { shareAShow } from '../lib/feed-fixture';
import { freePort, type LocalStack, recreateDatabase, startLocalStack, stopChild } from '../lib/local-stack';
import { mapLimit } from '../lib/map-limit';
import { reapStaleAppProcesses, waitForHealthy } from '../lib/processes';
import { cleanUpOnSignals } from '../lib/shutdown';
import { cpuSeconds, machineCpuSeconds, memoryMb, pidFromFile, withChildren } from './chat/procfs';
import {
  type DriverResult,
  type FromDriver,
  type LoopDelay,
  type PairSpec,
  round,
  type TargetKind,
  type ToDriver,
} from './chat/protocol';
import { percentile } from './stats';

const CLIENTS = Math.max(2, Math.floor(Number(process.env.BENCH_CLIENTS ?? 1000) / 2) * 2);
const PAIRS = CLIENTS / 2;
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const GRACE_SECONDS = Number(process.env.BENCH_GRACE_SECONDS ?? 5);
/**
 * Processes holding the client sockets, apart from this one (which only orchestrates and samples).
 * One is enough here: 1 000 sockets at 200 messages/s take ~7 % of a core and its event-loop delay
 * stays under 1 ms at p99; a second process only adds one more to share the two cores.
 */
const DRIVERS = Math.max(1, Math.min(PAIRS, Number(process.env.BENCH_DRIVERS ?? 1)));
/** 2: A and B of each pair on different instances (every message crosses); 1: both on one instance. */
const INSTANCES = process.env.BENCH_INSTANCES === '1' ? 1 : 2;
/** Requests in flight while making people and matches (not measured). */
const SETUP_CONCURRENCY = 16;
/** Sockets connecting at once per driver. */
const CONNECT_CONCURRENCY = 25;
/** The server's chat send limit, far above what one person sends here (RATE / CLIENTS per second). */
const CHAT_SEND_LIMIT = process.env.BENCH_CHAT_SEND_LIMIT ?? '1000000';
const CHAT_SEND_WINDOW_SECONDS = process.env.BENCH_CHAT_SEND_WINDOW_SECONDS ?? '60';

/** Extra node flags for the chat servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them. */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const TARGET_P99_MS = 50;
const TARGET_RELAY_FACTOR = 3;
const TARGET_RSS_MB = 300;
/** Off: the latency targets are printed but do not fail the run (losses, duplicates and memory still do). */
const LATENCY_TARGETS = process.env.BENCH_LATENCY_TARGETS !== 'off';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * A name for this run's directory, pid files and database beside the default ones: bench:capacity
 * runs this script as `capacity`, so neither reaps the other's processes nor recreates its database.
 */
const RUN_NAME = process.env.BENCH_CHAT_RUN ?? '';
if (!/^[a-z0-9]{0,20}$/.test(RUN_NAME)) throw new Error('BENCH_CHAT_RUN must be up to 20 lowercase letters or digits');
const DATA_DIR = path.join(ROOT, RUN_NAME ? `.data/bench-chat-${RUN_NAME}` : '.data/bench-chat');
const RUN_DIR = path.join(DATA_DIR, 'run');
const DATABASE = RUN_NAME ? `podmatch_bench_chat_${RUN_NAME}` : 'podmatch_bench_chat';
/** Output lines printed per child process (the rest are counted). */
const MAX_PRINTED_LINES = 15;

const log = (line: string) => console.log(`[bench] ${line}`);

// ------------------------------------------------------------------ child processes

interface Child {
  name: string;
  child: ChildProcess;
  pid: number;
  /** Output lines (the servers log at warn and above only). */
  lines: number;
  stop(): Promise<void>;
}

const children: Child[] = [];

/** `node --import tsx <entry>` in its own process group, output prefixed, pid file in RUN_DIR. */
function startChild(name: string, entry: string, env: NodeJS.ProcessEnv, ipc = false, nodeArgs: string[] = []): Child {
  const options = { cwd: ROOT, env, detached: true };
  const child = ipc
    ? fork(path.join(ROOT, entry), [], {
        ...options,
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      })
    : spawn(process.execPath, [...nodeArgs, '--import', 'tsx', entry], {
        ...options,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  const pid = child.pid ?? 0;
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const pidFile = path.join(RUN_DIR, `${name}.pid`);
  if (pid) fs.writeFileSync(pidFile, String(pid));
  child.once('exit', () => fs.rmSync(pidFile, { force: true }));
  const entryOf: Child = {
    name,
    child,
    pid,
    lines: 0,
    stop: () => stopChild(child, 'SIGTERM', name, log, 20_000),
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (entryOf.lines++ < MAX_PRINTED_LINES) console.log(`[${name}] ${line}`);
        else if (entryOf.lines === MAX_PRINTED_LINES + 1) console.log(`[${name}] (further lines counted, not printed)`);
      }
    });
  }
  children.push(entryOf);
  return entryOf;
}

async function stopChildren(filter: (c: Child) => boolean): Promise<void> {
  const chosen = children.filter(filter);
  await Promise.all(chosen.map((c) => c.stop().catch(() => undefined)));
}

// ------------------------------------------------------------------ clean shutdown, also on Ctrl-C

let stack: Promise<LocalStack> | undefined;
let cleaned: Promise<void> | undefined;

/** Stops what was started, in order: drivers, relays and servers, then PostgreSQL and Redis. */
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    await stopChildren((c) => c.name.startsWith('driver'));
    await stopChildren(() => true);
    const st = stack ? await stack.catch(() => undefined) : undefined;
    await st?.stop();
  })();
  return cleaned;
}

const shutdown = cleanUpOnSignals('the drivers, the servers, the relays and the local stack', cleanup, log);

// ------------------------------------------------------------------ drivers (client sockets)

class Driver {
  private waiting?: { type: FromDriver['type']; resolve: (m: FromDriver) => void; reject: (e: Error) => void };

  constructor(readonly proc: Child) {
    proc.child.on('message', (raw) => {
      const message = raw as FromDriver;
      const waiting = this.waiting;
      if (!waiting) return;
      if (message.type === 'error') {
        this.waiting = undefined;
        waiting.reject(new Error(`${proc.name}: ${message.message}`));
      } else if (message.type === waiting.type) {
        this.waiting = undefined;
        waiting.resolve(message);
      }
    });
    proc.child.once('exit', (code) => {
      this.waiting?.reject(new Error(`${proc.name} exited (code ${code})`));
      this.waiting = undefined;
    });
  }

  /** Sends `message` (if any) and waits for the driver's answer of type `type`. */
  request<T extends FromDriver['type']>(message: ToDriver | null, type: T): Promise<Extract<FromDriver, { type: T }>> {
    return new Promise((resolve, reject) => {
      this.waiting = { type, resolve: resolve as (m: FromDriver) => void, reject };
      if (message) this.proc.child.send(message);
    });
  }
}

// ------------------------------------------------------------------ HTTP setup (not measured)

async function post<T>(baseUrl: string, url: string, body: unknown, token?: string): Promise<T> {
  const res = await fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

/**
 * Makes 2 x PAIRS people by dev login and each pair a mutual match (romantic): a show in common puts
 * them in each other's feeds (the feed fixture), then two likes.
 */
async function makePairs(urls: [string, string], databaseUrl: string, rss: () => string): Promise<PairSpec[]> {
  const runId = Date.now().toString(36);
  let started = performance.now();
  const people = await mapLimit(
    Array.from({ length: CLIENTS }, (_, i) => i),
    SETUP_CONCURRENCY,
    (i) =>
      post<{ token: string; user: { id: number } }>(i % 2 === 0 ? urls[0] : urls[1], '/api/auth/dev-login', {
        username: `chat_${runId}_${i}`,
      }),
    () => shutdown.stopping,
  );
  await shutdown.parkIfStopping();
  log(`${CLIENTS} people made by dev login in ${((performance.now() - started) / 1000).toFixed(1)} s (${rss()})`);
  started = performance.now();
  await shareAShow(
    databaseUrl,
    Array.from(
      { length: PAIRS },
      (_, p) => [people[2 * p]?.user, people[2 * p + 1]?.user] as [{ id: number }, { id: number }],
    ),
  );
  const pairs = await mapLimit(
    Array.from({ length: PAIRS }, (_, p) => p),
    SETUP_CONCURRENCY,
    async (p) => {
      const a = people[2 * p] as { token: string; user: { id: number } };
      const b = people[2 * p + 1] as { token: string; user: { id: number } };
      const like = (from: typeof a, to: typeof a, url: string) =>
        post<{ id: number; isMutualMatch: boolean }>(
          url,
          '/api/matches',
          { user1Id: from.user.id, user2Id: to.user.id, intent: 'romantic', user1Liked: true },
          from.token,
        );
      await like(a, b, urls[0]);
      const match = await like(b, a, urls[1]);
      if (!match.isMutualMatch) throw new Error(`pair ${p}: the second like did not make a mutual match`);
      return {
        matchId: match.id,
        a: { id: a.user.id, token: a.token },
        b: { id: b.user.id, token: b.token },
      } satisfies PairSpec;
    },
    () => shutdown.stopping,
  );
  await shutdown.parkIfStopping();
  log(`${PAIRS} mutual matches made in ${((performance.now() - started) / 1000).toFixed(1)} s (${rss()})`);
  return pairs;
}

// ------------------------------------------------------------------ diagnostics: PostgreSQL, Redis

interface StatementRow {
  query: string;
  calls: number;
  mean_ms: number;
  total_ms: number;
}

/** pg_stat_statements needs to be preloaded; in this benchmark's own cluster it is (one restart). */
async function ensureStatementStats(postgresBaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: `${postgresBaseUrl}postgres` });
  await client.connect();
  try {
    // WAL flush timings too (pg_stat_wal.wal_sync_time): a reload is enough for that one.
    await client.query('alter system set track_wal_io_timing = on');
    await client.query('select pg_reload_conf()');
    const { rows } = await client.query<{ shared_preload_libraries: string }>('show shared_preload_libraries');
    if (rows[0]?.shared_preload_libraries.includes('pg_stat_statements')) return true;
    await client.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
    return false;
  } finally {
    await client.end();
  }
}

async function resetStatements(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_stat_statements_reset()');
  } finally {
    await client.end();
  }
}

interface WalStats {
  records: number;
  syncs: number;
  syncMs: number;
}

/** The cluster's WAL counters (PostgreSQL 14+): records written, flushes and their time. */
async function readWal(databaseUrl: string): Promise<WalStats | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<WalStats>(
      'select wal_records::float8 as records, wal_sync::float8 as syncs, wal_sync_time as "syncMs" from pg_stat_wal',
    );
    return rows[0];
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** After the setup's writes: fresh planner statistics and a checkpoint, so neither lands in the run. */
async function settleDatabase(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('vacuum analyze');
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
}

async function readStatements(databaseUrl: string): Promise<StatementRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<StatementRow>(
      `select regexp_replace(query, '\\s+', ' ', 'g') as query, calls::int as calls,
              mean_exec_time as mean_ms, total_exec_time as total_ms
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database() and query not ilike '%pg_stat_statements%' and query not ilike '%pg_stat_wal%'
        order by calls desc, total_exec_time desc`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

async function redisCommandStats(redisUrl: string): Promise<Map<string, number>> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const info = await redis.info('commandstats');
    const calls = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      calls.set(match[1] as string, Number(match[2]));
    return calls;
  } finally {
    redis.disconnect();
  }
}

// ------------------------------------------------------------------ one phase: connect, run, measure

interface PhaseOutcome {
  kind: TargetKind;
  connectSeconds: number;
  connectFailed: number;
  sent: number;
  warmupSent: number;
  received: number;
  lost: number;
  duplicated: number;
  failedAcks: number;
  ackErrors: Record<string, number>;
  unknown: number;
  misrouted: number;
  corrupted: number;
  disconnects: number;
  latency: { p50: number; p95: number; p99: number; max: number };
  /** Per second from the start of the warm-up: the p99 and the max send-to-receive latency, ms. */
  timeline: { p99: number; max: number }[];
  ack: { p50: number; p95: number; p99: number };
  achievedRate: number;
  drivers: { name: string; loopDelay: LoopDelay; schedulerLag: LoopDelay }[];
  /** Max VmRSS sampled from the connect through the grace, and VmHWM at the end, MB. */
  memory: Map<string, { rss: number; hwm: number }>;
  /** VmRSS before the sockets connected, MB. */
  rssBefore: Map<string, number>;
  /** CPU used during the measured window, in % of one core, by group. */
  cpu: Map<string, number>;
  machineBusyPercent: number;
  /** CPU of processes this benchmark did not start (other work on the machine), % of one core. */
  othersPercent: number;
  statements?: StatementRow[];
  /** WAL written and flushed during the run (warm-up included). */
  wal?: WalStats;
  redisCalls?: Map<string, number>;
}

interface Observed {
  name: string;
  pids: () => number[];
  /** A group of processes (PostgreSQL's backends): CPU only, no memory figure. */
  group?: boolean;
}

async function runPhase(
  kind: TargetKind,
  urls: [string, string],
  drivers: Driver[],
  observed: Observed[],
  diagnostics?: { databaseUrl?: string; redisUrl: string },
): Promise<PhaseOutcome> {
  log(`${kind}: connecting ${CLIENTS} sockets (A to ${urls[0]}, B to ${urls[1]})`);
  const memory = new Map<string, { rss: number; hwm: number }>();
  const rssBefore = new Map<string, number>();
  const single = observed.filter((o) => !o.group);
  for (const o of single) {
    const [pid] = o.pids();
    if (pid) rssBefore.set(o.name, memoryMb(pid).rss);
  }
  const sample = () => {
    for (const o of single) {
      const [pid] = o.pids();
      if (!pid) continue;
      const m = memoryMb(pid);
      const seen = memory.get(o.name) ?? { rss: 0, hwm: 0 };
      memory.set(o.name, { rss: Math.max(seen.rss, m.rss || 0), hwm: Math.max(seen.hwm, m.hwm || 0) });
    }
  };
  const sampler = setInterval(sample, 250);
  try {
    let started = performance.now();
    const connected = await Promise.all(
      drivers.map((d) => d.request({ type: 'connect', kind, urls, concurrency: CONNECT_CONCURRENCY }, 'connected')),
    );
    const connectSeconds = (performance.now() - started) / 1000;
    const connectFailed = connected.reduce((s, c) => s + c.failed, 0);
    log(
      `${kind}: ${CLIENTS - connectFailed} of ${CLIENTS} sockets connected in ${connectSeconds.toFixed(1)} s` +
        (connectFailed ? ` (${connected.flatMap((c) => c.errors).join('; ')})` : ''),
    );
    await shutdown.parkIfStopping();
    // Let the connection burst (session lookups, badge pushes, presence) settle first: until the
    // servers use less than a fifth of a core for a second (at most 30 s).
    const serverPids = observed.filter((o) => o.name.startsWith(`${kind}-`)).flatMap((o) => o.pids());
    const settleStarted = performance.now();
    for (let quiet = 0; quiet < 2 && performance.now() - settleStarted < 30_000; ) {
      const before = cpuSeconds(serverPids);
      await new Promise((r) => setTimeout(r, 500));
      quiet = cpuSeconds(serverPids) - before < 0.1 * serverPids.length ? quiet + 1 : 0;
    }
    log(`${kind}: servers idle after ${((performance.now() - settleStarted) / 1000).toFixed(1)} s`);
    await shutdown.parkIfStopping();

    if (diagnostics?.databaseUrl) await resetStatements(diagnostics.databaseUrl);
    const walBefore = diagnostics?.databaseUrl ? await readWal(diagnostics.databaseUrl) : undefined;
    const redisBefore = diagnostics ? await redisCommandStats(diagnostics.redisUrl) : undefined;

    log(
      `${kind}: ${RATE} messages/s over ${CLIENTS} senders, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured ` +
        `+ up to ${GRACE_SECONDS} s grace, ${drivers.length} driver process(es)`,
    );
    // CPU of every observed process over the measured window (timers in this process; the drivers
    // start their measured window WARMUP_SECONDS after 'run', within a few ms of each other).
    const cpuAt = () => ({
      groups: new Map(observed.map((o) => [o.name, cpuSeconds(o.pids())])),
      machine: machineCpuSeconds(),
      at: performance.now(),
    });
    let cpuStart: ReturnType<typeof cpuAt> | undefined;
    let cpuEnd: ReturnType<typeof cpuAt> | undefined;
    const t1 = setTimeout(() => {
      cpuStart = cpuAt();
    }, WARMUP_SECONDS * 1000);
    const t2 = setTimeout(
      () => {
        cpuEnd = cpuAt();
      },
      (WARMUP_SECONDS + SECONDS) * 1000,
    );
    started = performance.now();
    const shares = drivers.length;
    const results = (
      await Promise.all(
        drivers.map((d, i) =>
          d.request(
            {
              type: 'run',
              spec: {
                rate: (RATE * driverPairs(i, shares)) / PAIRS,
                warmupSeconds: WARMUP_SECONDS,
                seconds: SECONDS,
                graceSeconds: GRACE_SECONDS,
              },
            },
            'result',
          ),
        ),
      )
    ).map((r) => r.result);
    clearTimeout(t1);
    clearTimeout(t2);
    cpuEnd ??= cpuAt();
    sample();
    log(`${kind}: run done in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const statements = diagnostics?.databaseUrl ? await readStatements(diagnostics.databaseUrl) : undefined;
    const walAfter = diagnostics?.databaseUrl ? await readWal(diagnostics.databaseUrl) : undefined;
    const wal =
      walBefore && walAfter
        ? {
            records: walAfter.records - walBefore.records,
            syncs: walAfter.syncs - walBefore.syncs,
            syncMs: walAfter.syncMs - walBefore.syncMs,
          }
        : undefined;
    const redisAfter = diagnostics ? await redisCommandStats(diagnostics.redisUrl) : undefined;
    let redisCalls: Map<string, number> | undefined;
    if (redisBefore && redisAfter) {
      redisCalls = new Map();
      for (const [command, n] of redisAfter) {
        const diff = n - (redisBefore.get(command) ?? 0) - (command === 'info' ? 1 : 0);
        if (diff > 0) redisCalls.set(command, diff);
      }
    }

    await Promise.all(drivers.map((d) => d.request({ type: 'disconnect' }, 'disconnected')));

    const cpu = new Map<string, number>();
    let machineBusyPercent = Number.NaN;
    let othersPercent = Number.NaN;
    if (cpuStart && cpuEnd) {
      const wall = (cpuEnd.at - cpuStart.at) / 1000;
      for (const [name, end] of cpuEnd.groups) cpu.set(name, (100 * (end - (cpuStart.groups.get(name) ?? 0))) / wall);
      const total = cpuEnd.machine.total - cpuStart.machine.total;
      const busy = cpuEnd.machine.busy - cpuStart.machine.busy;
      machineBusyPercent = total > 0 ? (100 * busy) / total : Number.NaN;
      const ours = [...cpu.values()].reduce((s, x) => s + x, 0);
      othersPercent = Math.max(0, (100 * busy) / wall - ours);
    }
    return summarize(kind, results, drivers, {
      connectSeconds,
      connectFailed,
      memory,
      rssBefore,
      cpu,
      machineBusyPercent,
      othersPercent,
      statements,
      wal,
      redisCalls,
    });
  } finally {
    clearInterval(sampler);
  }
}

/** Pairs of driver i when PAIRS are dealt round-robin over `shares` drivers. */
function driverPairs(i: number, shares: number): number {
  return Math.floor(PAIRS / shares) + (i < PAIRS % shares ? 1 : 0);
}

function summarize(
  kind: TargetKind,
  results: DriverResult[],
  drivers: Driver[],
  extra: Pick<
    PhaseOutcome,
    | 'connectSeconds'
    | 'connectFailed'
    | 'memory'
    | 'rssBefore'
    | 'cpu'
    | 'machineBusyPercent'
    | 'othersPercent'
    | 'statements'
    | 'wal'
    | 'redisCalls'
  >,
): PhaseOutcome {
  const sum = (f: (r: DriverResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const acks = results.flatMap((r) => r.ackLatencies).sort((a, b) => a - b);
  const ackErrors: Record<string, number> = {};
  for (const r of results) for (const [k, n] of Object.entries(r.ackErrors)) ackErrors[k] = (ackErrors[k] ?? 0) + n;
  const sent = sum((r) => r.sent);
  // Per second from the start of the warm-up (index WARMUP_SECONDS = the first measured second).
  const perSecond: number[][] = [];
  for (const r of results) {
    for (const [offset, latency] of r.timeline) {
      const second = Math.max(0, Math.floor(offset / 1000) + WARMUP_SECONDS);
      const bucket = perSecond[second] ?? [];
      bucket.push(latency);
      perSecond[second] = bucket;
    }
  }
  const timeline = Array.from(perSecond, (values = []) => {
    const sorted = values.sort((a, b) => a - b);
    return { p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
  });
  return {
    timeline,
    kind,
    ...extra,
    sent,
    warmupSent: sum((r) => r.warmupSent),
    received: sum((r) => r.received),
    lost: sum((r) => r.lost),
    duplicated: sum((r) => r.duplicated),
    failedAcks: sum((r) => r.failedAcks),
    ackErrors,
    unknown: sum((r) => r.unknown),
    misrouted: sum((r) => r.misrouted),
    corrupted: sum((r) => r.corrupted),
    disconnects: sum((r) => r.disconnects),
    latency: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
    },
    ack: { p50: percentile(acks, 50), p95: percentile(acks, 95), p99: percentile(acks, 99) },
    achievedRate: sent / Math.max(...results.map((r) => r.measuredSeconds), 1e-9),
    drivers: results.map((r, i) => ({
      name: drivers[i]?.proc.name ?? `driver-${i + 1}`,
      loopDelay: r.loopDelay,
      schedulerLag: r.schedulerLag,
    })),
  };
}

// ------------------------------------------------------------------ report

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

function printReport(phases: PhaseOutcome[], started: number): void {
  console.log('');
  console.log(
    `${'path'.padEnd(6)} ${'sent'.padStart(6)} ${'recv'.padStart(6)} ${'lost'.padStart(5)} ${'dup'.padStart(4)} ` +
      `${'ackfail'.padStart(7)} ${'msg/s'.padStart(6)} | ${'p50 ms'.padStart(7)} ${'p95'.padStart(7)} ` +
      `${'p99'.padStart(7)} ${'max'.padStart(7)} | ${'ack p50'.padStart(7)} ${'p99'.padStart(7)} | other`,
  );
  for (const o of phases) {
    const other = [
      o.connectFailed ? `${o.connectFailed} sockets not connected` : '',
      o.disconnects ? `${o.disconnects} disconnects` : '',
      o.unknown ? `${o.unknown} unknown` : '',
      o.misrouted ? `${o.misrouted} misrouted` : '',
      o.corrupted ? `${o.corrupted} altered` : '',
      Object.keys(o.ackErrors).length
        ? `acks: ${Object.entries(o.ackErrors)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`
        : '',
    ]
      .filter(Boolean)
      .join('; ');
    console.log(
      `${o.kind.padEnd(6)} ${String(o.sent).padStart(6)} ${String(o.received).padStart(6)} ${String(o.lost).padStart(5)} ` +
        `${String(o.duplicated).padStart(4)} ${String(o.failedAcks).padStart(7)} ${f1(o.achievedRate).padStart(6)} | ` +
        `${f2(o.latency.p50).padStart(7)} ${f2(o.latency.p95).padStart(7)} ${f2(o.latency.p99).padStart(7)} ` +
        `${f1(o.latency.max).padStart(7)} | ${f2(o.ack.p50).padStart(7)} ${f2(o.ack.p99).padStart(7)} | ${other || '-'}`,
    );
  }
  for (const o of phases) {
    console.log(
      `${o.kind} p99 by second (ms; warm-up in brackets): ${o.timeline
        .map((t, i) => {
          const text = t.p99 >= 100 ? t.p99.toFixed(0) : t.p99.toFixed(1);
          return i < WARMUP_SECONDS ? `[${text}]` : text;
        })
        .join(' ')}`,
    );
  }
  console.log(
    `(send-to-receive = the receiver's 'message:new' minus the send, on the driver's clock; ${WARMUP_SECONDS} s warm-up ` +
      `not counted; connect ${phases.map((o) => `${f1(o.connectSeconds)} s ${o.kind}`).join(', ')})`,
  );

  console.log('');
  console.log(
    `${'process'.padEnd(12)} ${'RSS before'.padStart(10)} ${'max RSS MB'.padStart(10)} ${'VmHWM MB'.padStart(9)} ` +
      phases.map((o) => `CPU % (${o.kind})`.padStart(13)).join(' '),
  );
  const names = [...new Set(phases.flatMap((o) => [...o.memory.keys(), ...o.cpu.keys()]))];
  for (const name of names) {
    // Memory of a process as seen in the first phase it ran in (the drivers run in both).
    const m = phases.map((o) => o.memory.get(name)).find(Boolean);
    const before = phases.map((o) => o.rssBefore.get(name)).find((x) => x !== undefined);
    console.log(
      `${name.padEnd(12)} ${f1(before ?? Number.NaN).padStart(10)} ${f1(m?.rss ?? Number.NaN).padStart(10)} ${f1(m?.hwm ?? Number.NaN).padStart(9)} ` +
        phases.map((o) => f1(o.cpu.get(name) ?? Number.NaN).padStart(13)).join(' '),
    );
  }
  console.log(
    `${'(others)'.padEnd(12)} ${'-'.padStart(10)} ${'-'.padStart(10)} ${'-'.padStart(9)} ` +
      phases.map((o) => f1(o.othersPercent).padStart(13)).join(' '),
  );
  console.log(
    `(CPU over the measured window in % of one core, ${os.cpus().length} cores; (others): processes this benchmark ` +
      `did not start; machine busy ${phases.map((o) => `${f1(o.machineBusyPercent)} % ${o.kind}`).join(', ')})`,
  );

  for (const o of phases) {
    const perMessage = (names: string[]) =>
      (10 * names.reduce((sum, name) => sum + (o.cpu.get(name) ?? 0), 0)) / o.achievedRate;
    const servers = [...o.cpu.keys()].filter((name) => name.startsWith(`${o.kind}-`));
    console.log(
      `CPU per message (${o.kind}): servers ${f2(perMessage(servers))} ms, postgres ${f2(perMessage(['postgres']))} ms, ` +
        `redis ${f2(perMessage(['redis']))} ms, drivers ${f2(perMessage(o.drivers.map((d) => d.name)))} ms`,
    );
  }

  console.log('');
  console.log('driver event loops (ms) and scheduler lag (actual minus intended send time, ms):');
  for (const o of phases) {
    for (const d of o.drivers) {
      console.log(
        `  ${o.kind.padEnd(6)} ${d.name}: loop delay p50 ${f2(d.loopDelay.p50)} p99 ${f2(d.loopDelay.p99)} ` +
          `max ${f1(d.loopDelay.max)}; lag p50 ${f2(d.schedulerLag.p50)} p99 ${f2(d.schedulerLag.p99)} max ${f1(d.schedulerLag.max)}`,
      );
    }
  }

  for (const o of phases) {
    const messages = o.sent + o.warmupSent;
    if (!o.statements?.length) continue;
    console.log('');
    console.log(`PostgreSQL statements during the ${o.kind} run (warm-up included: ${messages} messages), by calls:`);
    let calls = 0;
    let total = 0;
    for (const s of o.statements) {
      calls += s.calls;
      total += s.total_ms;
    }
    console.log(
      `  ${f2(calls / messages)} statements and ${f2(total / messages)} ms of execution per message (all statements)`,
    );
    for (const s of o.statements.slice(0, 12)) {
      const query = s.query.length > 110 ? `${s.query.slice(0, 107)}...` : s.query;
      console.log(
        `  ${f2(s.calls / messages).padStart(6)}/msg ${f2(s.mean_ms).padStart(6)} ms mean  ${String(s.calls).padStart(7)}  ${query}`,
      );
    }
    if (o.wal) {
      console.log(
        `  WAL: ${f2(o.wal.records / messages)} records and ${f2(o.wal.syncs / messages)} flushes per message, ` +
          `${f2(o.wal.syncMs / Math.max(1, o.wal.syncs))} ms per flush`,
      );
    }
  }
  console.log('');
  for (const o of phases) {
    if (!o.redisCalls) continue;
    const n = o.sent + o.warmupSent;
    const top = [...o.redisCalls].sort((a, b) => b[1] - a[1]).filter(([k]) => k !== 'info');
    const total = [...o.redisCalls.values()].reduce((s, x) => s + x, 0);
    console.log(
      `Redis commands during the ${o.kind} run: ${f2(total / n)} per message (${top
        .map(([k, c]) => `${k} ${f2(c / n)}`)
        .join(', ')})`,
    );
  }
  const lines = children.filter((c) => c.lines > 0 && !c.name.startsWith('driver'));
  if (lines.length) {
    console.log(`output lines of the servers and relays: ${lines.map((c) => `${c.name} ${c.lines}`).join(', ')}`);
  }
  console.log(`(total ${Math.round((performance.now() - started) / 1000)} s)`);
}

// ------------------------------------------------------------------ main

/** Sets up the database and the two chat servers; returns their URLs, or throws. */
async function startChatServers(services: LocalStack, redisUrl: string) {
  // Statement statistics (pg_stat_statements) need a preload: set once in this cluster, restart.
  // Not in services someone else started (BENCH_POSTGRES): their settings are theirs.
  let statementStats = false;
  try {
    if (process.env.BENCH_POSTGRES) throw new Error('the cluster of BENCH_POSTGRES is left as it is');
    statementStats = await ensureStatementStats(services.postgresBaseUrl);
    if (!statementStats) {
      log('enabling pg_stat_statements in the benchmark cluster (one restart)');
      await services.stop();
      stack = startLocalStack(stackOptions);
      services = await stack;
      redisUrl = services.redisUrl;
      statementStats = await ensureStatementStats(services.postgresBaseUrl);
    }
  } catch (error) {
    log(`pg_stat_statements not available (${(error as Error).message}); no statement figures`);
  }
  await shutdown.parkIfStopping();
  const databaseUrl = await recreateDatabase(services.postgresBaseUrl, DATABASE);
  const orm = await initOrm(databaseUrl);
  try {
    await migrate(orm);
    if (statementStats) await orm.em.getConnection().execute('create extension if not exists pg_stat_statements');
  } finally {
    await orm.close();
  }
  await shutdown.parkIfStopping();

  const configText = fs.readFileSync(path.join(ROOT, 'server/src/config.ts'), 'utf8');
  if (!configText.includes('CHAT_SEND_LIMIT')) {
    log('warning: server/src/config.ts reads no CHAT_SEND_LIMIT; the servers keep their own send limit');
  }
  const ports = INSTANCES === 1 ? [await freePort()] : [await freePort(), await freePort()];
  // With one instance, A and B both use it.
  const urls = [0, 1].map((i) => `http://127.0.0.1:${ports[Math.min(i, ports.length - 1)]}`) as [string, string];
  // Both instances sign image proxy URLs with one key (docs/image-proxy.md).
  const imageProxyKey = randomBytes(32).toString('base64');
  /** Starts the instances (again: the same ports) and waits until they serve. */
  const launch = async () => {
    const servers = ports.map((port, i) =>
      startChild(
        `chat-${i + 1}`,
        'server/src/main.ts',
        {
          ...process.env,
          NODE_ENV: 'development',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: databaseUrl,
          REDIS_URL: redisUrl,
          MEDIA_DIR: path.join(DATA_DIR, 'media'),
          LOG_LEVEL: 'warn',
          // The whole load comes from one address (docs/security.md, rate limits).
          RATE_LIMIT_SCALE: '1000',
          MATCHES_RECOMPUTE_EVERY_MINUTES: '0',
          CHAT_SEND_LIMIT,
          CHAT_SEND_WINDOW_SECONDS,
          IMAGE_PROXY_KEY: imageProxyKey,
        },
        false,
        SERVER_NODE_ARGS,
      ),
    );
    await Promise.all(servers.map((s, i) => waitForServing(urls[i] as string, s.child)));
    await shutdown.parkIfStopping();
    log(
      `chat servers: ${servers.map((s, i) => `${s.name} pid ${s.pid} ${urls[i]}, RSS ${f1(memoryMb(s.pid).rss)} MB`).join('; ')}`,
    );
    return servers;
  };
  return {
    launch,
    urls,
    databaseUrl: statementStats ? databaseUrl : undefined,
    databaseUrlForSetup: databaseUrl,
    redisUrl,
  };
}

/**
 * Until the server answers /api/health with its database and Redis reachable. No worker runs
 * here, so the health check as a whole says 503 (no worker heartbeat); that does not matter.
 */
async function waitForServing(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline && !shutdown.stopping) {
    if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}) while starting`);
    try {
      const res = await fetch(`${url}/api/health`);
      const body = (await res.json()) as { database?: { ok?: boolean }; redis?: { ok?: boolean } };
      if (body.database?.ok && body.redis?.ok) return;
      last = JSON.stringify(body);
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the server at ${url} did not serve within ${timeoutMs / 1000} s: ${last}`);
}

/** The bare relay: two child processes on the same Redis. */
async function startRelays(redisUrl: string) {
  const ports = INSTANCES === 1 ? [await freePort()] : [await freePort(), await freePort()];
  const relays = ports.map((port, i) =>
    startChild(`relay-${i + 1}`, 'scripts/bench/chat/relay.ts', {
      ...process.env,
      PORT: String(port),
      REDIS_URL: redisUrl,
      RELAY_NAME: `relay-${i + 1}`,
    }),
  );
  const urls = [0, 1].map((i) => `http://127.0.0.1:${ports[Math.min(i, ports.length - 1)]}`) as [string, string];
  await Promise.all(relays.map((r, i) => waitForHealthy(urls[i] as string, r.child)));
  await shutdown.parkIfStopping();
  return { relays, urls };
}

async function startDrivers(pairs: PairSpec[]): Promise<Driver[]> {
  const drivers: Driver[] = [];
  for (let i = 0; i < DRIVERS; i++) {
    const driver = new Driver(startChild(`driver-${i + 1}`, 'scripts/bench/chat/driver.ts', process.env, true));
    await driver.request(null, 'ready');
    await driver.request({ type: 'pairs', index: i, pairs: pairs.filter((_, p) => p % DRIVERS === i) }, 'paired');
    drivers.push(driver);
  }
  return drivers;
}

const stackOptions = { dataDir: DATA_DIR, database: 'postgres', persistRedis: false, log };
/** BENCH_ONLY=relay: the relay path alone (no database, no servers; made-up people). */
const RELAY_ONLY = process.env.BENCH_ONLY === 'relay';

let exitCode = 0;
const startedAt = performance.now();
let finalLine: string | undefined;
try {
  const cpus = os.cpus();
  log(
    `${new Date().toISOString()}, ${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ` +
      os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' '),
  );
  log(`${CLIENTS} clients (${PAIRS} pairs), ${RATE} messages/s, ${SECONDS} s, ${DRIVERS} driver process(es)`);
  await reapStaleAppProcesses(RUN_DIR);
  stack = benchServices(stackOptions);
  const services = await stack;
  await shutdown.parkIfStopping();
  let redisUrl = services.redisUrl;

  let chat: PhaseOutcome | undefined;
  let pairs: PairSpec[];
  let drivers: Driver[] = [];
  let serverNames: string[] = [];
  const observedCommon = (): Observed[] => [
    ...drivers.map((d) => ({ name: d.proc.name, pids: () => [d.proc.pid] })),
    { name: 'bench', pids: () => [process.pid] },
    {
      name: 'postgres',
      group: true,
      pids: () => {
        const pm = pidFromFile(path.join(DATA_DIR, 'postgres', 'postmaster.pid'));
        return pm ? withChildren(pm) : [];
      },
    },
    {
      name: 'redis',
      pids: () => {
        const pid = pidFromFile(path.join(DATA_DIR, 'redis', 'redis.pid'));
        return pid ? [pid] : [];
      },
    },
  ];

  if (!RELAY_ONLY) {
    const started = await startChatServers(services, redisUrl);
    redisUrl = started.redisUrl;
    let servers = await started.launch();
    serverNames = servers.map((s) => s.name);
    const rss = () => servers.map((s) => `${s.name} RSS ${f1(memoryMb(s.pid).rss)} MB`).join(', ');
    pairs = await makePairs(started.urls, started.databaseUrlForSetup, rss);
    await settleDatabase(started.databaseUrlForSetup);
    // Fresh instances for the measured phase: what the setup left in their heaps (about 1 000 sign-ups,
    // each hashing an unusable password with scryptSync, and 1 000 likes) is not chat's memory.
    await stopChildren((c) => c.name.startsWith('chat-'));
    servers = await started.launch();
    drivers = await startDrivers(pairs);
    await shutdown.parkIfStopping();
    chat = await runPhase(
      'chat',
      started.urls,
      drivers,
      [...servers.map((s) => ({ name: s.name, pids: () => [s.pid] })), ...observedCommon()],
      { databaseUrl: started.databaseUrl, redisUrl },
    );
    await shutdown.parkIfStopping();
    // The chat servers stop before the relays start: each path has the machine to itself.
    await stopChildren((c) => c.name.startsWith('chat-'));
  } else {
    pairs = Array.from({ length: PAIRS }, (_, p) => ({
      matchId: p + 1,
      a: { id: 2 * p + 1, token: '' },
      b: { id: 2 * p + 2, token: '' },
    }));
    drivers = await startDrivers(pairs);
  }

  const { relays, urls: relayUrls } = await startRelays(redisUrl);
  const relay = await runPhase(
    'relay',
    relayUrls,
    drivers,
    [...relays.map((r) => ({ name: r.name, pids: () => [r.pid] })), ...observedCommon()],
    { redisUrl },
  );
  await shutdown.parkIfStopping();
  await cleanup();

  printReport(chat ? [chat, relay] : [relay], startedAt);
  console.log('');
  if (relay.lost || relay.duplicated || relay.failedAcks) {
    console.log(`note: the relay lost ${relay.lost}, duplicated ${relay.duplicated}, failed ${relay.failedAcks} acks`);
  }
  if (!chat) {
    exitCode = relay.lost || relay.duplicated || relay.failedAcks ? 1 : 0;
    finalLine = JSON.stringify({
      relay_p50_ms: round(relay.latency.p50),
      relay_p99_ms: round(relay.latency.p99),
      clients: CLIENTS,
      rate: RATE,
      seconds: SECONDS,
      sent: relay.sent,
    });
  } else {
    const serverRss = Math.max(...serverNames.map((name) => chat.memory.get(name)?.rss ?? Number.NaN));
    // The third element: a latency target (BENCH_LATENCY_TARGETS=off reports it without failing).
    const checks: [string, boolean, 'latency'?][] = [
      [`lost ${chat.lost} (target 0)`, chat.lost === 0],
      [`duplicated ${chat.duplicated} (target 0)`, chat.duplicated === 0],
      [`p99 ${f2(chat.latency.p99)} ms (target <= ${TARGET_P99_MS} ms)`, chat.latency.p99 <= TARGET_P99_MS, 'latency'],
      [
        `p99 ${f2(chat.latency.p99 / relay.latency.p99)} x the relay's ${f2(relay.latency.p99)} ms ` +
          `(target <= ${TARGET_RELAY_FACTOR}x)`,
        chat.latency.p99 <= TARGET_RELAY_FACTOR * relay.latency.p99,
        'latency',
      ],
      [
        `server RSS ${f1(serverRss)} MB at most per instance (target <= ${TARGET_RSS_MB} MB)`,
        serverRss <= TARGET_RSS_MB,
      ],
    ];
    for (const [text, ok] of checks) console.log(`${ok ? 'met   ' : 'MISSED'} ${text}`);
    if (!LATENCY_TARGETS) console.log('(BENCH_LATENCY_TARGETS=off: the latency targets do not fail this run)');
    const missed = checks.filter(([, ok, kind]) => !ok && (LATENCY_TARGETS || kind !== 'latency'));
    exitCode = missed.length ? 1 : 0;
    if (missed.length) console.log(`targets missed: ${missed.map(([text]) => text).join('; ')}`);
    finalLine = JSON.stringify({
      p50_ms: round(chat.latency.p50),
      p95_ms: round(chat.latency.p95),
      p99_ms: round(chat.latency.p99),
      relay_p50_ms: round(relay.latency.p50),
      relay_p99_ms: round(relay.latency.p99),
      lost: chat.lost,
      duplicated: chat.duplicated,
      failed_acks: chat.failedAcks,
      server_rss_mb: round(serverRss, 1),
      instances: INSTANCES,
      // Messages each instance took in per second (every send is stored and announced once).
      per_instance_rate: round(chat.sent / SECONDS / INSTANCES, 1),
      clients: CLIENTS,
      rate: RATE,
      seconds: SECONDS,
      sent: chat.sent,
    });
  }
} catch (error) {
  if (!shutdown.stopping) console.error(error);
  exitCode = 2;
} finally {
  if (!shutdown.stopping) await cleanup();
}
if (!shutdown.stopping) {
  if (finalLine) console.log(finalLine);
  process.exit(exitCode);
}
