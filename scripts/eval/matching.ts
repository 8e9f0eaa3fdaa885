// Offline evaluation of match quality (issue 9): populations with planted taste communities
// (scripts/eval/populations.ts) are loaded the way the product loads people, in a separate local
// stack (.data/eval): each person signs in (dev login) and uploads an OPML file over HTTP to the real
// server; each synthetic show's feed is real RSS on loopback (feed-server.ts), which the real worker
// (a process of its own) reads (podcasts.sync), so the shows an import created count for others once read (docs/podcasts.md,
// "Who sees a new show"); the worker then runs the recomputes and the freshness check as in
// production. Once every feed is read and the queues are idle with a current model, precision@10 of
// each person's served feed (share of the first 10 in their own community) is compared with two
// offline baselines over the same stored libraries (Jaccard, presence IDF-cosine), and the stored
// top 10s with those of a full recompute. Prints a table, the targets, and last one JSON line.
// Usage: npm run eval:matching   (EVAL_SIZES=300,800 or =tiny for a subset, EVAL_SEED=n for other
// draws, EVAL_ARRIVALS=n people importing at once, EVAL_REFRESH_CHECK_SECONDS=0 to see the served
// feeds without the freshness check; BENCH_POSTGRES / BENCH_REDIS: scripts/lib/bench-services.ts)
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '@server/config';
import { ArtworkUrls } from '@server/core/artwork/artwork-urls';
import { initOrm, migrate, type Orm } from '@server/core/db/orm';
import { sql } from '@server/core/db/sql';
import { createLogger } from '@server/core/logger';
import * as precompute from '@server/core/matching/precompute';
import { ensureComputed, feedFor, loadViewer } from '@server/features/feed/feed.service';
import { type RunningServer, startServer } from '@server/server';
import { QUEUES, WORKER_HEARTBEAT } from '@shared/index';
import { type Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { percentile } from '../bench/stats';
import { benchAppEnv, benchServices } from '../lib/bench-services';
import { recreateDatabase, stopChild } from '../lib/local-stack';
import { mapLimit } from '../lib/map-limit';
import { agreement, idfCosineTop, jaccardTop, type Libraries, precisionAtK, type TopLists } from './baselines';
import { type FeedServer, startFeedServer } from './feed-server';
import {
  generatePopulation,
  opmlDocument,
  type Person,
  POPULATION_SPECS,
  type Population,
  type PopulationSpec,
  TINY_SPEC,
} from './populations';

const K = 10;
const SEED = Number(process.env.EVAL_SEED ?? 1);
const FEED_INTENT = 'romantic';
const TARGETS = { overIdfCosine: 0.05, overJaccard: 1.2, agreementWithFull: 0.95 };
/** People signing up and importing at the same time. */
const ARRIVALS = Math.max(1, Number(process.env.EVAL_ARRIVALS ?? 4));
/**
 * The worker's freshness check interval (production: 15 s). Shorter here only so the run ends
 * sooner once the last feed is read; 0 turns the check off (what one-person recomputes alone give).
 */
const REFRESH_CHECK_SECONDS = Number(process.env.EVAL_REFRESH_CHECK_SECONDS ?? 2);
/** Every feed read and every recompute done within this (per population), or the run fails. */
const settleLimitMs = (people: number) => 120_000 + 200 * people;
const DATA_DIR = path.resolve('.data/eval');

const log = (line: string) => console.log(`[eval] ${line}`);
const seconds = (ms: number) => ms / 1000;
const round = (x: number, digits = 4) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

function selectedSpecs(): PopulationSpec[] {
  if (!process.env.EVAL_SIZES) return [...POPULATION_SPECS];
  const known = [...POPULATION_SPECS, TINY_SPEC];
  return process.env.EVAL_SIZES.split(',').map((item) => {
    const wanted = item.trim();
    const spec = known.find((s) => s.name === wanted || String(s.people) === wanted);
    if (!spec) {
      throw new Error(`EVAL_SIZES: no population "${wanted}" (have ${known.map((s) => `${s.name}/${s.people}`)})`);
    }
    return spec;
  });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

// ------------------------------------------------------------------ the product: server and worker

interface App {
  baseUrl: string;
  server: RunningServer;
  worker: ChildProcess;
  connection: Redis;
  /** The queues this evaluation waits on: feed reads and recomputes. */
  queues: Queue[];
  close(): Promise<void>;
}

/**
 * The real server in this process and the real worker in its own (as deployed: the full recompute's
 * synchronous phases then hold up the worker, not the imports), serving the feed reads and matching.
 */
async function startApp(databaseUrl: string, redisUrl: string): Promise<App> {
  const env = benchAppEnv(
    { databaseUrl, redisUrl, mediaDir: path.join(DATA_DIR, 'media') },
    {
      // Every person signs up and imports from this one address (docs/security.md, rate limits).
      RATE_LIMIT_SCALE: '1000',
      // The feeds are on loopback, on a random port (development and tests only).
      FEED_FETCH_ALLOWED_IPS: '127.0.0.1',
      // Feed reads and matching only: the avatars dev login queues play no part here.
      WORKER_QUEUES: [QUEUES.sync, QUEUES.matching].join(','),
      MATCHES_REFRESH_CHECK_SECONDS: String(REFRESH_CHECK_SECONDS),
      // No hourly full recompute (benchAppEnv): the freshness check is the mechanism under test.
    },
  );
  const server = await startServer(loadConfig(env), createLogger('server', 'warn'));
  // Not detached: a signal to this process group (Ctrl-C, npm test's time limit) stops it too.
  const worker = spawn(process.execPath, ['--import', 'tsx', 'worker/src/main.ts'], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queues = [QUEUES.sync, QUEUES.matching].map((name) => new Queue(name, { connection }));
  const close = async () => {
    await Promise.all(queues.map((q) => q.close()));
    connection.disconnect();
    await stopChild(worker, 'SIGTERM', 'worker', log);
    await server.close();
  };
  try {
    // Up once it beats (it has set up the freshness check by then).
    const deadline = performance.now() + 120_000;
    while ((await connection.zcard(WORKER_HEARTBEAT.key)) === 0) {
      if (worker.exitCode !== null) throw new Error(`the worker exited (code ${worker.exitCode}) while starting`);
      if (performance.now() > deadline) throw new Error('the worker did not start within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { baseUrl: server.url.replace('localhost', '127.0.0.1'), server, worker, connection, queues, close };
}

async function call<T>(url: string, init: RequestInit, expected: number): Promise<T> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${init.method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * Sign-ups one at a time in arrival order, so user ids follow it whatever the concurrency (ties in
 * the rankings go to the smaller id: the figures are the same every run).
 */
let signUps: Promise<unknown> = Promise.resolve();

/** One person arrives: dev login, then their OPML file uploaded as the app does it. */
async function arrive(app: App, feeds: FeedServer, person: Person): Promise<{ userId: number; importMs: number }> {
  const signUp = signUps.then(() =>
    call<{ token: string; user: { id: number } }>(
      `${app.baseUrl}/api/auth/dev-login`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: `eval${person.index}` }),
      },
      200,
    ),
  );
  signUps = signUp.catch(() => undefined);
  const login = await signUp;
  const form = new FormData();
  form.append('opml', new Blob([opmlDocument(person.shows, feeds.base)]), 'subscriptions.opml');
  const upload = await timed(() =>
    call<{ feeds: number; added: number; skipped: number; notAdded: number }>(
      `${app.baseUrl}/api/users/${login.user.id}/podcasts/opml`,
      { method: 'POST', headers: { authorization: `Bearer ${login.token}` }, body: form },
      202,
    ),
  );
  const { feeds: read, added, skipped, notAdded } = upload.value;
  if (read !== person.shows.length || added !== person.shows.length || skipped > 0 || notAdded > 0) {
    throw new Error(
      `OPML of person ${person.index}: ${person.shows.length} shows, ${JSON.stringify(upload.value)} in the answer`,
    );
  }
  return { userId: login.user.id, importMs: upload.ms };
}

interface Pending {
  /** Rows an import created whose feed was not read yet, and reads that failed. */
  unread: number;
  failedReads: number;
  outbox: number;
  jobs: number;
  /** Libraries changed since the model the stored scores use (the freshness check's condition). */
  modelBehind: boolean;
}

async function pendingWork(orm: Orm, app: App): Promise<Pending> {
  const [row] = await sql<{ unread: number; failed: number; outbox: number; changes: string; model: string | null }>(
    orm.em.fork() as EntityManager,
    `select (select count(*)::int from podcasts where last_fetched_at is null) as unread,
            (select count(*)::int from podcasts where fetch_error is not null) as failed,
            (select count(*)::int from job_outbox) as outbox,
            (select case when is_called then last_value else 0 end from library_changes) as changes,
            (select change_seq from matching_model) as model`,
  );
  let jobs = 0;
  for (const queue of app.queues) {
    const counts = await queue.getJobCounts('waiting', 'active', 'prioritized', 'waiting-children');
    jobs += Object.values(counts).reduce((s, n) => s + n, 0);
    // A job scheduler (the freshness check) always has its next run delayed: that is not work.
    jobs += (await queue.getDelayed()).filter((job) => !job.repeatJobKey).length;
  }
  return {
    unread: row?.unread ?? 0,
    failedReads: row?.failed ?? 0,
    outbox: row?.outbox ?? 0,
    jobs,
    modelBehind: REFRESH_CHECK_SECONDS > 0 && (row?.model === null || Number(row?.changes) > Number(row?.model)),
  };
}

/** Waits until every feed is read, no job is queued or running, and (with the check on) the model is current. */
async function settle(orm: Orm, app: App, people: number): Promise<void> {
  const deadline = performance.now() + settleLimitMs(people);
  let idleChecks = 0;
  let last: Pending | undefined;
  let reported = performance.now();
  while (performance.now() < deadline) {
    last = await pendingWork(orm, app);
    if (last.failedReads > 0) throw new Error(`${last.failedReads} feed reads failed (podcasts.fetch_error)`);
    const idle = last.unread === 0 && last.outbox === 0 && last.jobs === 0 && !last.modelBehind;
    // Twice in a row: a job's follow-up may be between its queues while they are counted.
    idleChecks = idle ? idleChecks + 1 : 0;
    if (idleChecks >= 2) return;
    if (performance.now() - reported > 10_000) {
      reported = performance.now();
      log(`waiting: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not settled after ${settleLimitMs(people) / 1000} s: ${JSON.stringify(last)}`);
}

/** How long the worker's jobs of this name took (finished - started), from the completed jobs kept in Redis. */
async function jobMs(queue: Queue, name: string, keep: (job: Job) => boolean = () => true): Promise<number[]> {
  const jobs = await queue.getJobs(['completed'], 0, -1);
  return jobs
    .filter((job) => job.name === name && job.finishedOn && job.processedOn && keep(job))
    .map((job) => (job.finishedOn as number) - (job.processedOn as number));
}

interface Loaded {
  /** user id -> community, and user ids in arrival order. */
  communityOf: Map<number, number>;
  userIds: number[];
  /** From the first arrival to the last upload's answer. */
  arriveMs: number;
  /** From the last upload's answer until every read and recompute is done. */
  settleMs: number;
  importMs: number[];
  recomputeMs: number[];
  syncMs: number[];
  fullRecomputes: number;
  feedReads: number;
}

/** People arrive (ARRIVALS at a time, in arrival order), then the worker finishes what they caused. */
async function load(orm: Orm, app: App, feeds: FeedServer, population: Population): Promise<Loaded> {
  const readsBefore = feeds.reads();
  const start = performance.now();
  let arrived = 0;
  const people = await mapLimit(population.people, ARRIVALS, async (person) => {
    const result = await arrive(app, feeds, person);
    if (++arrived % 500 === 0) log(`${arrived}/${population.people.length} people arrived`);
    return result;
  });
  const arriveMs = performance.now() - start;
  const settleStart = performance.now();
  await settle(orm, app, population.people.length);
  const settleMs = performance.now() - settleStart;

  const communityOf = new Map(population.people.map((person, i) => [people[i]?.userId as number, person.community]));
  const [sync, matching] = app.queues as [Queue, Queue];
  const full = await jobMs(
    matching,
    'matches.recompute',
    (job) => job.data.scope !== 'user' && job.returnvalue?.users > 0,
  );
  return {
    communityOf,
    userIds: people.map((p) => p.userId),
    arriveMs,
    settleMs,
    importMs: people.map((p) => p.importMs),
    recomputeMs: await jobMs(matching, 'matches.recompute', (job) => job.data.scope === 'user'),
    syncMs: await jobMs(sync, 'podcasts.sync'),
    fullRecomputes: full.length,
    feedReads: feeds.reads() - readsBefore,
  };
}

interface Snapshot {
  tops: TopLists;
  /** Mean length of the feed's first page, and how many people got fewer than K. */
  meanItems: number;
  short: number;
  /** First K per person with their match %, for the examples. */
  scores: Map<number, number[]>;
}

/** The feed's artwork URLs (unused here: only ids and match % are compared). */
const artwork = new ArtworkUrls(randomBytes(32));

/** Everyone's feed as the endpoint serves it (viewer, computed check, stored candidates). */
async function snapshot(orm: Orm, userIds: readonly number[]): Promise<Snapshot> {
  const tops: TopLists = new Map();
  const scores = new Map<number, number[]>();
  let items = 0;
  let short = 0;
  for (const userId of userIds) {
    const em = orm.em.fork() as EntityManager;
    const viewer = await loadViewer(em, userId);
    if (!viewer) throw new Error(`user ${userId} not found`);
    await ensureComputed(em, viewer);
    const feed = await feedFor(em, viewer, FEED_INTENT, artwork);
    const first = feed.slice(0, K);
    tops.set(
      userId,
      first.map((item) => item.id),
    );
    scores.set(
      userId,
      first.map((item) => item.matchPercentage),
    );
    items += feed.length;
    if (feed.length < K) short++;
  }
  return { tops, scores, meanItems: items / Math.max(1, userIds.length), short };
}

async function storedLibraries(em: EntityManager): Promise<Libraries> {
  const rows = await sql<{ user_id: number; podcast_id: number }>(
    em,
    'select user_id, podcast_id from user_podcasts where not hidden order by user_id, podcast_id',
  );
  const libraries = new Map<number, number[]>();
  for (const row of rows) {
    let list = libraries.get(row.user_id);
    if (!list) {
      list = [];
      libraries.set(row.user_id, list);
    }
    list.push(row.podcast_id);
  }
  return libraries;
}

interface Result {
  name: string;
  people: number;
  communities: number;
  shows: number;
  libraryRows: number;
  arriveSeconds: number;
  settleSeconds: number;
  importMsP50: number;
  recomputeMsP50: number;
  recomputeMsP95: number;
  syncMsP50: number;
  feedReads: number;
  fullRecomputes: number;
  fullSeconds: number;
  measureSeconds: number;
  feedItemsMean: number;
  feedShort: number;
  ours: number;
  idfCosine: number;
  jaccard: number;
  agreementWithFull: number;
  oursAfterFull: number;
  examples: string[];
}

function example(label: string, userId: number, communityOf: Map<number, number>, shot: Snapshot): string {
  const own = communityOf.get(userId);
  const ids = shot.tops.get(userId) ?? [];
  const pct = shot.scores.get(userId) ?? [];
  const list = ids.map((id, i) => `${communityOf.get(id) === own ? '+' : '-'}c${communityOf.get(id)} ${pct[i]}%`);
  return `${label} (user ${userId}, c${own}): ${list.join(', ') || '(empty)'}`;
}

async function runPopulation(
  services: { postgresBaseUrl: string; redisUrl: string },
  feeds: FeedServer,
  spec: PopulationSpec,
): Promise<Result> {
  log(`--- ${spec.name}: ${spec.people} people, ${spec.communities} communities`);
  const population = generatePopulation(spec, SEED);
  const databaseUrl = await recreateDatabase(services.postgresBaseUrl, 'podmatch_eval');
  // A fresh database restarts the outbox's job ids: the queues of the last population must go too.
  const redis = new Redis(services.redisUrl);
  await redis.flushdb();
  redis.disconnect();
  const orm = await initOrm(databaseUrl);
  try {
    await migrate(orm);
    const app = await startApp(databaseUrl, services.redisUrl);
    let loaded: Loaded;
    try {
      loaded = await load(orm, app, feeds, population);
    } finally {
      await app.close();
    }
    const { communityOf, userIds } = loaded;
    log(
      `arrived in ${seconds(loaded.arriveMs).toFixed(1)} s; feeds read and recomputes done ${seconds(loaded.settleMs).toFixed(1)} s later`,
    );

    const measureStart = performance.now();
    const served = await snapshot(orm, userIds);
    let measureMs = performance.now() - measureStart;

    const em = orm.em.fork() as EntityManager;
    const libraries = await storedLibraries(em);
    const [counts] = await sql<{ shows: number; rows: number; unverified: number }>(
      em,
      `select (select count(*)::int from podcasts) as shows, (select count(*)::int from user_podcasts) as rows,
              (select count(*)::int from podcasts where verified_at is null) as unverified`,
    );
    const expectedRows = population.people.reduce((s, p) => s + p.shows.length, 0);
    // Every show read is verified (counts for others); otherwise the evaluation would measure nothing.
    if (counts?.shows !== population.distinctShows || counts?.rows !== expectedRows || counts?.unverified !== 0) {
      throw new Error(
        `stored ${counts?.shows} shows (${counts?.unverified} not verified after their read) / ${counts?.rows} library rows, generated ${population.distinctShows} / ${expectedRows}`,
      );
    }
    const baselineStart = performance.now();
    const idfCosine = precisionAtK(idfCosineTop(libraries, K), communityOf, userIds, K);
    const jaccard = precisionAtK(jaccardTop(libraries, K), communityOf, userIds, K);
    log(`baselines in ${seconds(performance.now() - baselineStart).toFixed(1)} s`);

    // The reference: everyone recomputed at once from the same libraries.
    const full = await timed(() => precompute.recomputeAll(orm.em.fork() as EntityManager));
    const fullStart = performance.now();
    const afterFull = await snapshot(orm, userIds);
    measureMs += performance.now() - fullStart;
    log(`full recompute in ${seconds(full.ms).toFixed(1)} s`);

    const first = userIds[0] as number;
    const last = userIds[userIds.length - 1] as number;
    return {
      name: spec.name,
      people: spec.people,
      communities: spec.communities,
      shows: counts.shows,
      libraryRows: counts.rows,
      arriveSeconds: seconds(loaded.arriveMs),
      settleSeconds: seconds(loaded.settleMs),
      importMsP50: percentile(sorted(loaded.importMs), 50),
      recomputeMsP50: percentile(sorted(loaded.recomputeMs), 50),
      recomputeMsP95: percentile(sorted(loaded.recomputeMs), 95),
      syncMsP50: percentile(sorted(loaded.syncMs), 50),
      feedReads: loaded.feedReads,
      fullRecomputes: loaded.fullRecomputes,
      fullSeconds: seconds(full.ms),
      measureSeconds: seconds(measureMs),
      feedItemsMean: served.meanItems,
      feedShort: served.short,
      ours: precisionAtK(served.tops, communityOf, userIds, K),
      idfCosine,
      jaccard,
      agreementWithFull: agreement(served.tops, afterFull.tops, userIds),
      oursAfterFull: precisionAtK(afterFull.tops, communityOf, userIds, K),
      examples: [
        example('first arrival, served feed', first, communityOf, served),
        example('first arrival, after full ', first, communityOf, afterFull),
        example('last arrival,  served feed', last, communityOf, served),
      ],
    };
  } finally {
    await orm.close();
  }
}

function printTable(results: Result[]): void {
  const f3 = (x: number) => x.toFixed(3);
  const f1 = (x: number) => x.toFixed(1);
  const rows: [string, (r: Result) => string][] = [
    ['people', (r) => String(r.people)],
    ['communities', (r) => String(r.communities)],
    ['shows (catalog)', (r) => String(r.shows)],
    ['library rows', (r) => String(r.libraryRows)],
    ['arrivals s', (r) => f1(r.arriveSeconds)],
    ['  OPML upload ms p50', (r) => f1(r.importMsP50)],
    ['then settled s', (r) => f1(r.settleSeconds)],
    ['  feeds read', (r) => String(r.feedReads)],
    ['  podcasts.sync ms p50', (r) => f1(r.syncMsP50)],
    ['  recompute (user) ms p50', (r) => f1(r.recomputeMsP50)],
    ['  recompute (user) ms p95', (r) => f1(r.recomputeMsP95)],
    ['  full recomputes run', (r) => String(r.fullRecomputes)],
    ['reference recomputeAll s', (r) => f1(r.fullSeconds)],
    ['feed reads s', (r) => f1(r.measureSeconds)],
    ['feed items (page of 30)', (r) => f1(r.feedItemsMean)],
    [`people with < ${K} items`, (r) => String(r.feedShort)],
    ['precision@10 ours', (r) => f3(r.ours)],
    ['precision@10 idf_cosine', (r) => f3(r.idfCosine)],
    ['precision@10 jaccard', (r) => f3(r.jaccard)],
    ['ours / jaccard', (r) => f3(r.ours / r.jaccard)],
    ['ours - idf_cosine', (r) => f3(r.ours - r.idfCosine)],
    ['agreement_with_full', (r) => f3(r.agreementWithFull)],
    ['precision@10 after full', (r) => f3(r.oursAfterFull)],
  ];
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const columnWidth = Math.max(10, ...results.map((r) => r.name.length));
  console.log('');
  console.log(`${''.padEnd(labelWidth)} ${results.map((r) => r.name.padStart(columnWidth)).join(' ')}`);
  for (const [label, cell] of rows) {
    console.log(`${label.padEnd(labelWidth)} ${results.map((r) => cell(r).padStart(columnWidth)).join(' ')}`);
  }
  console.log('');
  for (const r of results) {
    console.log(`${r.name}, first ${K} (+ same community, - other):`);
    for (const line of r.examples) console.log(`  ${line}`);
  }
}

/** One line per target and population; returns the failures. */
function checkTargets(results: Result[]): string[] {
  const failures: string[] = [];
  console.log('');
  for (const r of results) {
    const checks: [string, boolean][] = [
      [
        `ours ${r.ours.toFixed(3)} >= idf_cosine ${r.idfCosine.toFixed(3)} + ${TARGETS.overIdfCosine}`,
        r.ours >= r.idfCosine + TARGETS.overIdfCosine,
      ],
      [
        `ours ${r.ours.toFixed(3)} >= ${TARGETS.overJaccard} x jaccard ${r.jaccard.toFixed(3)} (= ${(TARGETS.overJaccard * r.jaccard).toFixed(3)})`,
        r.ours >= TARGETS.overJaccard * r.jaccard,
      ],
      [
        `agreement_with_full ${r.agreementWithFull.toFixed(3)} >= ${TARGETS.agreementWithFull}`,
        r.agreementWithFull >= TARGETS.agreementWithFull,
      ],
    ];
    for (const [text, ok] of checks) {
      const line = `${r.name} (${r.people}): ${text}`;
      console.log(`${ok ? 'PASS' : 'FAIL'} ${line}`);
      if (!ok) failures.push(line);
    }
  }
  return failures;
}

const started = performance.now();
const specs = selectedSpecs();
log(
  `seed ${SEED}; ${ARRIVALS} people arriving at once; freshness check ${REFRESH_CHECK_SECONDS > 0 ? `every ${REFRESH_CHECK_SECONDS} s` : 'off'}`,
);
const services = await benchServices({ dataDir: DATA_DIR, database: 'postgres', persistRedis: false, log });
const feeds = await startFeedServer();
const results: Result[] = [];
try {
  for (const spec of specs) results.push(await runPopulation(services, feeds, spec));
} finally {
  await feeds.close();
  await services.stop();
}

printTable(results);
const failures = checkTargets(results);
const totalSeconds = seconds(performance.now() - started);
console.log('');
console.log(
  failures.length === 0
    ? `all targets met (${totalSeconds.toFixed(0)} s)`
    : `${failures.length} target(s) failed (${totalSeconds.toFixed(0)} s)`,
);
const mean = (pick: (r: Result) => number) => results.reduce((s, r) => s + pick(r), 0) / results.length;
console.log(
  JSON.stringify({
    precision_at_10: round(mean((r) => r.ours)),
    idf_cosine: round(mean((r) => r.idfCosine)),
    jaccard: round(mean((r) => r.jaccard)),
    agreement_with_full: round(mean((r) => r.agreementWithFull)),
    refresh_check_seconds: REFRESH_CHECK_SECONDS,
    seed: SEED,
    seconds: round(totalSeconds, 1),
    populations: results.map((r) => ({
      name: r.name,
      people: r.people,
      communities: r.communities,
      shows: r.shows,
      library_rows: r.libraryRows,
      arrive_seconds: round(r.arriveSeconds, 1),
      settle_seconds: round(r.settleSeconds, 1),
      feeds_read: r.feedReads,
      full_recomputes: r.fullRecomputes,
      precision_at_10: round(r.ours),
      idf_cosine: round(r.idfCosine),
      jaccard: round(r.jaccard),
      ours_over_jaccard: round(r.ours / r.jaccard),
      ours_minus_idf_cosine: round(r.ours - r.idfCosine),
      agreement_with_full: round(r.agreementWithFull),
      precision_at_10_after_full: round(r.oursAfterFull),
      feed_items_mean: round(r.feedItemsMean, 2),
      people_with_fewer_than_10: r.feedShort,
    })),
  }),
);
process.exit(failures.length === 0 ? 0 : 1);
