// API benchmark (docs/performance.md, docs/operations.md "Capacity and sizing"): a seeded population
// driven by virtual users through the real HTTP API with a mix of feed reads, likes, passes, matches and
// library edits, against a server process and a worker process as deployed. BENCH_CONCURRENCY may list
// levels (`10,20,40,80`): the JSON result then carries the knee, the most likes per second with the
// like's p95 <= BENCH_LIKE_P95_MS (100). Usage: npm run bench:api
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { initOrm, migrate } from '@server/core/db/orm';
import { ormConfig } from '@server/core/db/orm-config';
import { mulberry32 } from '@server/core/db/seeders/demo-library';
import { seedDemoData } from '@server/core/db/seeders/demo-seed';
import { INTENTS, type Intent, QUEUES, WORKER_HEARTBEAT } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import pg from 'pg';
import { benchAppEnv, benchServices } from '../lib/bench-services';
import { freePort, type LocalStack, recreateDatabase, stopChild } from '../lib/local-stack';
import { mapLimit } from '../lib/map-limit';
import { waitForHealthy } from '../lib/processes';
import { cleanUpOnSignals } from '../lib/shutdown';
import { percentile } from './stats';

const USERS = Number(process.env.BENCH_USERS ?? 200);
/**
 * Virtual users at once; a list (`10,20,40,80`) runs one measured period per level, on the same
 * people, and reports the knee: the most likes per second with the like's p95 <= LIKE_P95_TARGET_MS.
 */
const CONCURRENCY_LEVELS = (process.env.BENCH_CONCURRENCY ?? '80').split(',').map((c) => Number(c.trim()));
const LIKE_P95_TARGET_MS = Number(process.env.BENCH_LIKE_P95_MS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SEED = Number(process.env.BENCH_SEED ?? 1);
/** Share of newcomers in the mix, in percent (taken from the feed reads); 0 = a fixed population. */
const SIGNUP_PERCENT = Math.min(24, Math.max(0, Number(process.env.BENCH_SIGNUP_PERCENT ?? 1)));
const SHOWS_MIN = 8;
const SHOWS_MAX = 15;
/** Concurrency of the population setup (it is not measured). */
const SETUP_CONCURRENCY = 10;
/** A request still unanswered after this long counts as an error (the server must answer). */
const REQUEST_TIMEOUT_MS = 120_000;
const DATA_DIR = path.resolve('.data/bench-api');
const POOL_MAX = (ormConfig('postgres://x@localhost/x').pool as { max?: number } | undefined)?.max ?? Number.NaN;

const log = (line: string) => console.log(`[bench] ${line}`);

// ------------------------------------------------------------------ clean shutdown, also on Ctrl-C

let stack: Promise<LocalStack> | undefined;
/** The server and worker processes (as deployed: separate processes), stopped before the services. */
const children: { name: string; child: ChildProcess }[] = [];
let cleaned: Promise<void> | undefined;

/** Stops what was started, in order: worker, server, then the services. */
function cleanup(): Promise<void> {
  cleaned ??= (async () => {
    for (const { name, child } of [...children].reverse()) await stopChild(child, 'SIGTERM', name, log, 40_000);
    const st = await stack?.catch(() => undefined);
    await st?.stop();
  })();
  return cleaned;
}

const shutdown = cleanUpOnSignals('the server, the worker and the local stack', cleanup, log);

// ------------------------------------------------------------------ helpers

const random = mulberry32(SEED);
const randomInt = (n: number) => Math.floor(random() * n);
const pickOne = <T>(list: readonly T[]): T => list[randomInt(list.length)] as T;

const round = (x: number) => Math.round(x * 100) / 100;

/** One line per kind of message: SQL literals and numbers out, long statements cut in the middle. */
function shorten(message: string): string {
  const flat = (message.split(' - detail:', 1)[0] ?? message)
    .replace(/'\{[^']*\}'/g, "'{…}'")
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= 200) return flat;
  // "<statement> - <database error>": keep the start and the error.
  const error = flat.lastIndexOf(' - ');
  return error > 0 ? `${flat.slice(0, 80)} … ${flat.slice(error + 3, error + 123)}` : `${flat.slice(0, 200)} …`;
}

/**
 * A process's output (LOG_LEVEL=warn: only warnings and errors): the first few lines printed, all
 * counted by message (time stamps, numbers and SQL literals out).
 */
function countLines(name: string, child: ChildProcess, counts: Map<string, number>): void {
  const MAX_PRINTED = 5;
  let printed = 0;
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const text = line.replace(/^\[[\d:.]+\]\s*/, '').trim();
        if (!text) continue;
        const key = `${measuring ? 'run' : 'setup'}: [${name}] ${shorten(text)}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        if (printed++ < MAX_PRINTED) console.log(`[${name}] ${text.length > 300 ? shorten(text) : text}`);
      }
    });
  }
}

/** Starts `node --import tsx <entry>` with `env`, its output counted. */
function startProcess(name: string, entry: string, env: NodeJS.ProcessEnv, counts: Map<string, number>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push({ name, child });
  countLines(name, child, counts);
  return child;
}

// ------------------------------------------------------------------ HTTP with figures

type Op =
  | 'like'
  | 'pass'
  | 'feed'
  | 'feedCounts'
  | 'matches'
  | 'libraryAdd'
  | 'libraryHide'
  | 'libraryRemove'
  | 'signup'
  | 'firstFeed';
/**
 * Share of each choice in the mix (sums to 100). `signup` is a newcomer: dev login, 8-15 shows
 * added (counted as libraryAdd), then the first feed read (`firstFeed`, which computes their
 * candidates in the request while the worker recomputes others); they then join the population.
 */
const MIX: [Op, number][] = [
  ['like', 28],
  ['pass', 14],
  ['feed', 24 - SIGNUP_PERCENT],
  ['feedCounts', 10],
  ['matches', 10],
  ['libraryAdd', 6],
  ['libraryHide', 5],
  ['libraryRemove', 3],
  ['signup', SIGNUP_PERCENT],
];
const OPS: Op[] = [...MIX.map(([op]) => op), 'firstFeed'];

interface OpStats {
  ms: number[];
  statuses: Map<string, number>;
  /** Answers other than the status expected for the operation (4xx never are: the driver knows its state). */
  errors: number;
  serverErrors: number;
}
const figures = new Map<Op, OpStats>(
  OPS.map((op) => [op, { ms: [], statuses: new Map(), errors: 0, serverErrors: 0 }]),
);
let measuring = false;
let mutualAnswers = 0;

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the driver reads arbitrary JSON answers
  json: any;
}

let baseUrl = '';

async function call(op: Op | null, method: string, url: string, token: string, body?: unknown, expected = 200) {
  const start = performance.now();
  let answer: Answer;
  let label: string;
  try {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    answer = { status: res.status, json };
    label = String(res.status);
  } catch (error) {
    answer = { status: 0, json: undefined };
    label = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
  }
  const ms = performance.now() - start;
  if (op && measuring) {
    const s = figures.get(op) as OpStats;
    s.ms.push(ms);
    s.statuses.set(label, (s.statuses.get(label) ?? 0) + 1);
    if (answer.status !== expected) s.errors++;
    if (answer.status >= 500) s.serverErrors++;
  }
  if (!op && answer.status !== expected) {
    throw new Error(`${method} ${url}: ${label} ${JSON.stringify(answer.json)?.slice(0, 200)}`);
  }
  return answer;
}

// ------------------------------------------------------------------ the population

interface Entry {
  id: number;
  podcastId: number;
  hidden: boolean;
}
interface Person {
  id: number;
  token: string;
  library: Entry[];
  /** Ids from the last feed read per intent, not yet liked or passed. */
  feed: Partial<Record<Intent, number[]>>;
  busy: boolean;
}

/** Zipf (s = 1) over the catalog ranks: a few shows are in many libraries, most in few. */
function zipfIndex(n: number): number {
  return Math.min(n, Math.floor(Math.exp(random() * Math.log(n + 1)))) - 1;
}

const runId = Date.now().toString(36);
let signups = 0;

/** Someone new: dev login, then 8-15 catalog shows (Zipf), one request each. `op` null: setup, not measured. */
async function newcomer(catalog: number[], op: 'signup' | null): Promise<Person> {
  const login = await call(op, 'POST', '/api/auth/dev-login', '', { username: `bench_${runId}_${signups++}` });
  if (login.status !== 200) throw new Error(`dev login answered ${login.status}`);
  const person: Person = { id: login.json.user.id, token: login.json.token, library: [], feed: {}, busy: false };
  const wanted = SHOWS_MIN + randomInt(SHOWS_MAX - SHOWS_MIN + 1);
  const chosen = new Set<number>();
  while (chosen.size < wanted) chosen.add(catalog[zipfIndex(catalog.length)] as number);
  for (const podcastId of chosen) {
    const res = await call(
      op && 'libraryAdd',
      'POST',
      `/api/users/${person.id}/podcasts`,
      person.token,
      { podcastId },
      201,
    );
    if (res.status === 201) person.library.push({ id: res.json.id, podcastId, hidden: false });
  }
  return person;
}

async function makePopulation(catalog: number[]): Promise<Person[]> {
  const people = await mapLimit(
    Array.from({ length: USERS }, (_, i) => i),
    SETUP_CONCURRENCY,
    () => newcomer(catalog, null),
    () => shutdown.stopping,
  );
  await shutdown.parkIfStopping();
  const entries = people.reduce((n, p) => n + p.library.length, 0);
  log(`population: ${people.length} people, ${entries} library entries`);
  return people;
}

/** Waits until the worker has done every queued job (avatars, candidate recomputes), scheduled runs aside. */
async function drainQueues(redisUrl: string, limitMs: number): Promise<boolean> {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queues = Object.values(QUEUES).map((name) => new Queue(name, { connection }));
  try {
    const deadline = Date.now() + limitMs;
    while (Date.now() < deadline && !shutdown.stopping) {
      let pending = 0;
      for (const q of queues) {
        const c = await q.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children');
        pending += Object.values(c).reduce((s, n) => s + n, 0);
        // A job scheduler (the freshness check) always has its next run delayed: that is not work.
        pending += (await q.getDelayed()).filter((job) => !job.repeatJobKey).length;
      }
      if (pending === 0) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  } finally {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
  }
}

// ------------------------------------------------------------------ the mix

function chooseOp(): Op {
  let x = random() * 100;
  for (const [op, weight] of MIX) {
    x -= weight;
    if (x < 0) return op;
  }
  return 'feed';
}

async function act(person: Person, people: Person[], catalog: number[]): Promise<void> {
  const intent = pickOne(INTENTS);
  let op = chooseOp();
  if (op === 'libraryRemove' && person.library.length <= SHOWS_MIN) op = 'libraryHide';
  if ((op === 'libraryHide' || op === 'libraryRemove') && person.library.length === 0) op = 'libraryAdd';
  switch (op) {
    case 'like':
    case 'pass': {
      // Someone from their feed, as the app does (a like or pass may only target someone the
      // person can see): the feed is read first when none is at hand, and counted as a feed read.
      if (!person.feed[intent]?.length) {
        const read = await call('feed', 'GET', `/api/users/${person.id}/feed?intent=${intent}`, person.token);
        if (Array.isArray(read.json)) person.feed[intent] = (read.json as { id: number }[]).map((item) => item.id);
      }
      const target = person.feed[intent]?.shift();
      if (target === undefined) return;
      const res = await call(op, 'POST', '/api/matches', person.token, {
        user1Id: person.id,
        user2Id: target,
        intent,
        user1Liked: op === 'like',
      });
      if (res.json?.isMutualMatch && op === 'like') mutualAnswers++;
      return;
    }
    case 'feed': {
      const res = await call(op, 'GET', `/api/users/${person.id}/feed?intent=${intent}`, person.token);
      if (Array.isArray(res.json)) person.feed[intent] = (res.json as { id: number }[]).map((item) => item.id);
      return;
    }
    case 'feedCounts':
      await call(op, 'GET', `/api/users/${person.id}/feed-counts`, person.token);
      return;
    case 'signup': {
      const fresh = await newcomer(catalog, 'signup');
      const res = await call('firstFeed', 'GET', `/api/users/${fresh.id}/feed?intent=${intent}`, fresh.token);
      if (Array.isArray(res.json)) fresh.feed[intent] = (res.json as { id: number }[]).map((item) => item.id);
      people.push(fresh);
      return;
    }
    case 'matches':
      await call(op, 'GET', `/api/users/${person.id}/matches?intent=${intent}`, person.token);
      return;
    case 'libraryAdd': {
      const owned = new Set(person.library.map((e) => e.podcastId));
      let podcastId = catalog[zipfIndex(catalog.length)] as number;
      for (let tries = 0; owned.has(podcastId) && tries < 20; tries++) podcastId = pickOne(catalog);
      const res = await call(op, 'POST', `/api/users/${person.id}/podcasts`, person.token, { podcastId }, 201);
      if (res.status === 201 && !owned.has(podcastId))
        person.library.push({ id: res.json.id, podcastId, hidden: false });
      return;
    }
    case 'libraryHide': {
      const entry = pickOne(person.library);
      const res = await call(op, 'PUT', `/api/user-podcasts/${entry.id}`, person.token, { hidden: !entry.hidden });
      if (res.status === 200) entry.hidden = !entry.hidden;
      return;
    }
    case 'libraryRemove': {
      const index = randomInt(person.library.length);
      const entry = person.library[index] as Entry;
      const res = await call(op, 'DELETE', `/api/user-podcasts/${entry.id}`, person.token);
      if (res.status === 200) person.library.splice(index, 1);
      return;
    }
  }
}

/** A free person, held until released: one virtual user acts as a given person at a time. */
function takeFree(people: Person[]): Person {
  let i = randomInt(people.length);
  while ((people[i] as Person).busy) i = (i + 1) % people.length;
  const person = people[i] as Person;
  person.busy = true;
  return person;
}

async function drive(people: Person[], catalog: number[], concurrency: number): Promise<number> {
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  measuring = true;
  const virtualUser = async () => {
    while (!shutdown.stopping && performance.now() < deadline) {
      const person = takeFree(people);
      try {
        await act(person, people, catalog);
      } finally {
        person.busy = false;
      }
    }
  };
  const progress = setInterval(() => {
    const now = performance.now();
    let n = 0;
    let e = 0;
    for (const s of figures.values()) {
      n += s.ms.length;
      e += s.serverErrors;
    }
    log(`${Math.round((now - started) / 1000)} s: ${n} requests answered, ${e} 5xx`);
  }, 10_000);
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, people.length) }, virtualUser));
  } finally {
    clearInterval(progress);
    measuring = false;
  }
  return (performance.now() - started) / 1000;
}

/** Whether the worker process's heartbeat shows up (it runs every queue) within a minute. */
async function workerBeating(redisUrl: string, child: ChildProcess): Promise<boolean> {
  const redis = new Redis(redisUrl);
  try {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && child.exitCode === null; ) {
      const ids = await redis.zrangebyscore(WORKER_HEARTBEAT.queueKey(QUEUES.media), Date.now(), '+inf');
      if (ids.some((id) => id.startsWith(`${child.pid}-`))) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Prints the measured period's table and answers its figures (the JSON result's fields). */
function report(
  seconds: number,
  concurrency: number,
  population: number,
  withWorker: boolean,
  startedAt: number,
): Record<string, unknown> {
  const ops: Record<string, unknown> = {};
  let requests = 0;
  let errors = 0;
  let serverErrors = 0;
  console.log('');
  console.log(
    `${'operation'.padEnd(14)} ${'count'.padStart(6)} ${'req/s'.padStart(7)} ${'errors'.padStart(6)} ${'5xx'.padStart(5)} | ` +
      `${'p50 ms'.padStart(8)} ${'p95'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)} | statuses`,
  );
  for (const [op, s] of figures) {
    const sorted = [...s.ms].sort((a, b) => a - b);
    const row = {
      count: sorted.length,
      rps: round(sorted.length / seconds),
      errors: s.errors,
      errors_5xx: s.serverErrors,
      p50_ms: round(percentile(sorted, 50)),
      p95_ms: round(percentile(sorted, 95)),
      p99_ms: round(percentile(sorted, 99)),
    };
    ops[op] = row;
    requests += row.count;
    errors += s.errors;
    serverErrors += s.serverErrors;
    const statuses = [...s.statuses].map(([k, n]) => `${k}:${n}`).join(' ');
    console.log(
      `${op.padEnd(14)} ${String(row.count).padStart(6)} ${row.rps.toFixed(1).padStart(7)} ${String(row.errors).padStart(6)} ` +
        `${String(row.errors_5xx).padStart(5)} | ${row.p50_ms.toFixed(1).padStart(8)} ${row.p95_ms.toFixed(1).padStart(8)} ` +
        `${row.p99_ms.toFixed(1).padStart(8)} ${(sorted.at(-1) ?? Number.NaN).toFixed(1).padStart(8)} | ${statuses}`,
    );
  }
  const logLines = [...logCounts].sort((a, b) => b[1] - a[1]);
  console.log(
    `(${requests} requests in ${seconds.toFixed(1)} s = ${(requests / seconds).toFixed(1)} req/s; ` +
      `${mutualAnswers} likes answered as mutual; total ${Math.round((performance.now() - startedAt) / 1000)} s)`,
  );
  if (logLines.length) {
    console.log('server/worker log lines at warn or above, by phase (setup or measured run) and message:');
    for (const [key, n] of logLines.slice(0, 10)) console.log(`  ${String(n).padStart(6)}  ${key}`);
  }
  return {
    users: USERS,
    newcomers: population - USERS,
    concurrency,
    pool_max: POOL_MAX,
    seconds: round(seconds),
    worker: withWorker,
    requests,
    rps: round(requests / seconds),
    errors,
    errors_5xx: serverErrors,
    log_warn_error_lines: logLines.reduce((s, [, n]) => s + n, 0),
    ops,
  };
}

// ------------------------------------------------------------------ main

const logCounts = new Map<string, number>();
let exitCode = 0;
try {
  const startedAt = performance.now();
  stack = benchServices({ dataDir: DATA_DIR, database: 'postgres', persistRedis: false, log });
  const services = await stack;
  await shutdown.parkIfStopping();
  const databaseUrl = await recreateDatabase(services.postgresBaseUrl, 'podmatch_bench_api');
  const redisUrl = services.redisUrl;
  const orm = await initOrm(databaseUrl);
  try {
    await migrate(orm);
    // The podcast catalog and the demo people, as on a fresh `npm start`.
    await seedDemoData(orm.em.fork() as EntityManager);
  } finally {
    await orm.close();
  }
  await shutdown.parkIfStopping();

  const env = benchAppEnv(
    { databaseUrl, redisUrl, mediaDir: path.join(DATA_DIR, 'media') },
    {
      // The whole load comes from one address (docs/security.md, rate limits).
      RATE_LIMIT_SCALE: '1000',
      // No scheduled full recompute during the run (its next run would also keep the queue busy).
      MATCHES_RECOMPUTE_EVERY_MINUTES: process.env.MATCHES_RECOMPUTE_EVERY_MINUTES ?? '0',
    },
  );
  const port = await freePort();
  const serverProcess = startProcess('server', 'server/src/main.ts', { ...env, PORT: String(port) }, logCounts);
  baseUrl = `http://127.0.0.1:${port}`;
  const workerProcess = startProcess('worker', 'worker/src/main.ts', env, logCounts);
  const withWorker = await workerBeating(redisUrl, workerProcess);
  // Healthy: the database and Redis answer, and the worker's heartbeat is seen.
  if (withWorker) await waitForHealthy(baseUrl, serverProcess, 120_000);
  if (!withWorker) log("worker not started: running without it, library edits' jobs stay queued");
  await shutdown.parkIfStopping();

  const reader = new pg.Client({ connectionString: databaseUrl });
  await reader.connect();
  const catalogRows = (await reader.query<{ id: number }>('select id from podcasts order by id')).rows;
  await reader.end();
  // Shuffled, so the popular (low-rank) end of the Zipf draw is not one category.
  const catalog = catalogRows.map((r) => r.id);
  for (let i = catalog.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [catalog[i], catalog[j]] = [catalog[j] as number, catalog[i] as number];
  }
  let phase = performance.now();
  const people = await makePopulation(catalog);
  log(`population made in ${((performance.now() - phase) / 1000).toFixed(1)} s`);
  if (withWorker) {
    phase = performance.now();
    const drained = await drainQueues(redisUrl, 180_000);
    await shutdown.parkIfStopping();
    log(
      drained
        ? `worker queues drained in ${((performance.now() - phase) / 1000).toFixed(1)} s (candidates computed)`
        : 'worker queues not drained after 180 s; going on',
    );
  }
  await shutdown.parkIfStopping();

  const levels: {
    concurrency: number;
    likes_per_second: number;
    like_p95_ms: number;
    rps: number;
    errors_5xx: number;
  }[] = [];
  let last: Record<string, unknown> = {};
  let serverErrors = 0;
  for (const concurrency of CONCURRENCY_LEVELS) {
    for (const s of figures.values()) Object.assign(s, { ms: [], statuses: new Map(), errors: 0, serverErrors: 0 });
    log(
      `driving ${concurrency} concurrent virtual users over ${people.length} people for ${SECONDS} s ` +
        `(database pool max ${POOL_MAX} per process; server and worker ${withWorker ? 'processes' : 'process, no worker'})`,
    );
    const seconds = await drive(people, catalog, concurrency);
    await shutdown.parkIfStopping();
    last = report(seconds, concurrency, people.length, withWorker, startedAt);
    const like = (last.ops as Record<string, { rps: number; p95_ms: number }>).like;
    serverErrors += last.errors_5xx as number;
    levels.push({
      concurrency,
      likes_per_second: like?.rps ?? 0,
      like_p95_ms: like?.p95_ms ?? Number.NaN,
      rps: last.rps as number,
      errors_5xx: last.errors_5xx as number,
    });
  }
  // The knee: the most likes per second among the levels whose like p95 met the target.
  const met = levels.filter((l) => l.like_p95_ms <= LIKE_P95_TARGET_MS && l.errors_5xx === 0);
  const knee = met.sort((x, y) => y.likes_per_second - x.likes_per_second)[0];
  if (levels.length > 1) {
    console.log('');
    console.log(`concurrency  likes/s  like p95 ms  req/s  (target: like p95 <= ${LIKE_P95_TARGET_MS} ms)`);
    for (const l of levels) {
      console.log(
        `${String(l.concurrency).padStart(11)}  ${l.likes_per_second.toFixed(1).padStart(7)}  ` +
          `${l.like_p95_ms.toFixed(1).padStart(11)}  ${l.rps.toFixed(1).padStart(5)}`,
      );
    }
  }
  console.log(
    JSON.stringify({
      ...last,
      likes_knee: {
        likes_per_second: knee?.likes_per_second ?? 0,
        concurrency: knee?.concurrency ?? null,
        like_p95_ms: knee?.like_p95_ms ?? null,
        target_p95_ms: LIKE_P95_TARGET_MS,
      },
      levels,
    }),
  );
  exitCode = serverErrors > 0 ? 1 : 0;
} catch (error) {
  if (!shutdown.stopping) console.error(error);
  exitCode = 2;
} finally {
  if (!shutdown.stopping) await cleanup();
}
if (!shutdown.stopping) process.exit(exitCode);
