// Feed benchmark: synthetic populations (10k and 100k people, ~30 shows each drawn with Zipf
// popularity over 20k shows, three intents) in a separate local stack (.data/bench), the full
// candidate precompute, then GET /api/users/:id/feed over HTTP against GET /api/users/:id as a
// baseline. Prints a table and, last, one JSON line. Usage: npm run bench:feed
// Knobs: BENCH_USERS=10000,100000 (populations) BENCH_PODCASTS=20000 (catalog) BENCH_REQUESTS=600
// BENCH_SAMPLE_USERS=500 (people whose feeds are read) BENCH_REUSE=1 BENCH_SHARED_BUFFERS=4GB;
// BENCH_POSTGRES / BENCH_REDIS: services to use instead of its own (scripts/lib/bench-services.ts)
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '@server/config';
import { initOrm, migrate } from '@server/core/db/orm';
import { createLogger } from '@server/core/logger';
import { recomputeAll } from '@server/core/matching/precompute';
import { startServer } from '@server/server';
import { INTENTS } from '@shared/index';
import pg from 'pg';
import { benchServices } from '../lib/bench-services';
import { recreateDatabase } from '../lib/local-stack';
import { percentile } from './stats';

const POPULATIONS = process.env.BENCH_USERS ? process.env.BENCH_USERS.split(',').map(Number) : [10_000, 100_000];
const PODCASTS = Number(process.env.BENCH_PODCASTS ?? 20_000);
/** Draws per person before duplicates are dropped: about 30 distinct shows remain. */
const DRAWS = 34;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 600);
const SAMPLE_USERS = Number(process.env.BENCH_SAMPLE_USERS ?? 500);

const log = (line: string) => console.log(`[bench] ${line}`);

interface Stats {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}
const stats = (samples: number[]): Stats => {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: samples.reduce((s, x) => s + x, 0) / samples.length,
  };
};
const round = (x: number) => Math.round(x * 100) / 100;

/** Set-based generation: no row goes through Node. */
async function generate(em: EntityManager, users: number): Promise<void> {
  const sql = (text: string) => em.getConnection().execute(text, [], 'run');
  await sql('set synchronous_commit = off');
  await sql(`insert into podcasts (name, creator, category, categories, created_at)
    select 'Show ' || g, 'Creator ' || g, c, array[c, c2], now()
      from generate_series(1, ${PODCASTS}) g,
      lateral (select (array['Comedy','News','True Crime','Society & Culture','Business','Health & Fitness',
        'History','Science','Sports','Technology','Education','Arts','Music','TV & Film','Religion & Spirituality',
        'Kids & Family','Leisure','Fiction','Government'])[1 + (g * 7919) % 19] as c,
        (array['Comedy','News','Business','Science','Arts','Education'])[1 + (g * 104729) % 6] as c2) x`);
  await sql(`insert into users (username, password, display_name, intent, match_preferences, created_at, updated_at, is_demo, sign_up_method)
    select 'bench' || g, 'x', 'Bench person ' || g, (array['romantic','platonic','professional'])[1 + g % 3],
           '{"minMatchPercentage":0}', now(), now(), false, 'dev_login'
      from generate_series(1, ${users}) g`);
  await sql(`insert into user_profiles (user_id, intent, display_name, tagline, active)
    select u.id, i, u.display_name, 'Tagline of ' || u.display_name, random() < 0.7
      from users u cross join unnest(array['romantic','platonic','professional']) i`);
  // Zipf (s = 1) over show ranks: rank = floor(exp(U * ln(N + 1))) is log-uniform, P(rank) ~ 1/rank.
  await sql(`insert into user_podcasts (user_id, podcast_id, times_listened, episode_count, hidden, source, created_at)
    select u.id, (select min(id) from podcasts) - 1 + r.rank, floor(random() * random() * 60)::int,
           floor(random() * 120)::int, random() < 0.03, 'manual', now()
      from users u cross join lateral (
        select least(${PODCASTS}, floor(exp(random() * ln(${PODCASTS} + 1)))::int) as rank
          from generate_series(1, ${DRAWS}) where u.id > 0) r
    on conflict (user_id, podcast_id) do nothing`);
  await sql('analyze');
}

/**
 * Loads the relations both measured requests read into PostgreSQL's cache, as they are on a server
 * that has been running (pg_prewarm, shipped with PostgreSQL): without it the first touch of each
 * row is a disk read, which this machine's small page cache makes the common case at 1M people.
 */
async function prewarm(em: EntityManager): Promise<void> {
  const sql = (text: string) => em.getConnection().execute(text, [], 'all');
  await sql('create extension if not exists pg_prewarm');
  const relations = [
    'users',
    'users_pkey',
    'sessions',
    'sessions_token_hash_unique',
    'user_profiles',
    'user_profiles_user_id_intent_unique',
    'feed_candidates_pkey',
    'feed_candidate_runs',
    'feed_candidate_runs_pkey',
    'user_podcasts_user_id_podcast_id_unique',
    'podcasts',
    'podcasts_pkey',
  ];
  let blocks = 0;
  for (const name of relations) {
    const [row] = await sql(`select pg_prewarm('${name}') as n`);
    blocks += Number(row?.n ?? 0);
  }
  log(`prewarmed ${relations.length} relations (${Math.round((blocks * 8) / 1024)} MB)`);
}

/** People in an existing benchmark database, or -1 when there is none. */
async function userCount(postgresBaseUrl: string, database: string): Promise<number> {
  const client = new pg.Client({ connectionString: `${postgresBaseUrl}${database}` });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from users');
    return rows[0]?.n ?? -1;
  } catch {
    return -1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

interface Result {
  users: number;
  generateMs: number;
  libraryRows: number;
  precomputeMs: number;
  candidateRows: number;
  feed: Stats;
  baseline: Stats;
  counts: Stats;
  /** Each sampled person's first feed read (nothing of theirs cached yet). */
  cold: Stats;
  feedItemsMean: number;
}

async function runPopulation(stack: { postgresBaseUrl: string; redisUrl: string }, users: number): Promise<Result> {
  log(`--- ${users} people`);
  const database = `podmatch_bench_${users}`;
  const reuse = process.env.BENCH_REUSE === '1' && (await userCount(stack.postgresBaseUrl, database)) === users;
  const databaseUrl = reuse
    ? `${stack.postgresBaseUrl}${database}`
    : await recreateDatabase(stack.postgresBaseUrl, database);
  const orm = await initOrm(databaseUrl);
  let generateMs: number;
  let precomputeMs: number;
  let libraryRows: number;
  let candidateRows: number;
  try {
    await migrate(orm);
    // BENCH_REUSE=1 keeps a population generated by an earlier run (the 1M one takes minutes).
    generateMs = reuse ? 0 : (await timed(() => generate(orm.em.fork() as EntityManager, users))).ms;
    if (reuse) log(`reusing the ${users} people of ${database}`);
    const [row] = await orm.em.getConnection().execute('select count(*)::int as n from user_podcasts', [], 'all');
    libraryRows = row?.n as number;
    log(`generated ${users} people, ${libraryRows} library rows in ${Math.round(generateMs)} ms`);
    const pre = await timed(() => recomputeAll(orm.em.fork() as EntityManager, log));
    precomputeMs = pre.ms;
    candidateRows = pre.value.rows;
    await orm.em.getConnection().execute('analyze feed_candidates', [], 'run');
    await prewarm(orm.em.fork() as EntityManager);
  } finally {
    await orm.close();
  }

  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'development',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: stack.redisUrl,
    MEDIA_DIR: '.data/bench/media',
    LOG_LEVEL: 'warn',
    // The whole load comes from one address (docs/security.md, rate limits).
    RATE_LIMIT_SCALE: '1000',
    // Signs image proxy URLs (docs/image-proxy.md): a fresh key per run.
    IMAGE_PROXY_KEY: randomBytes(32).toString('base64'),
  });
  const server = await startServer(config, createLogger('server', config.logLevel));
  try {
    const em = server.deps.orm.em.fork() as EntityManager;
    const sampled = (await em
      .getConnection()
      .execute(`select id from users order by random() limit ${SAMPLE_USERS}`, [], 'all')) as { id: number }[];
    const people: { id: number; token: string }[] = [];
    for (const { id } of sampled) people.push({ id, token: (await server.deps.sessions.create(em, id)).token });

    const get = async (url: string, token: string) => {
      const start = performance.now();
      const res = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.text();
      const ms = performance.now() - start;
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
      return { ms, body };
    };
    const pick = (i: number) => people[(i * 7919) % people.length] as { id: number; token: string };
    const intentOf = (i: number) => INTENTS[i % INTENTS.length];

    // Warm-up: every sampled person's feed in each intent, counts and profile once (the first
    // feed read of each is reported as the cold figure).
    const cold: number[] = [];
    for (const p of people) {
      for (const intent of INTENTS) {
        const first = await get(`/api/users/${p.id}/feed?intent=${intent}`, p.token);
        if (intent === INTENTS[0]) cold.push(first.ms);
      }
      await get(`/api/users/${p.id}/feed-counts`, p.token);
      await get(`/api/users/${p.id}`, p.token);
    }
    const feed: number[] = [];
    const baseline: number[] = [];
    const counts: number[] = [];
    let items = 0;
    // Interleaved, so background noise on this shared machine hits both series alike.
    for (let i = 0; i < REQUESTS; i++) {
      const p = pick(i);
      const f = await get(`/api/users/${p.id}/feed?intent=${intentOf(i)}`, p.token);
      feed.push(f.ms);
      items += (JSON.parse(f.body) as unknown[]).length;
      baseline.push((await get(`/api/users/${p.id}`, p.token)).ms);
      if (i % 3 === 0) counts.push((await get(`/api/users/${p.id}/feed-counts`, p.token)).ms);
    }
    return {
      users,
      generateMs,
      libraryRows,
      precomputeMs,
      candidateRows,
      feed: stats(feed),
      baseline: stats(baseline),
      counts: stats(counts),
      cold: stats(cold),
      feedItemsMean: items / REQUESTS,
    };
  } finally {
    await server.close();
  }
}

const started = performance.now();
const stack = await benchServices({
  dataDir: path.resolve('.data/bench'),
  database: 'postgres',
  persistRedis: false,
  log,
  // What a production server of this size would use: the hot indexes stay in PostgreSQL's cache.
  postgresSettings: { shared_buffers: process.env.BENCH_SHARED_BUFFERS ?? '4GB' },
});
const results: Result[] = [];
try {
  for (const users of POPULATIONS) results.push(await runPopulation(stack, users));
} finally {
  await stack.stop();
}

console.log('');
console.log(
  `${'people'.padStart(8)} ${'lib rows'.padStart(9)} ${'gen s'.padStart(6)} ${'pre s'.padStart(6)} ${'cand rows'.padStart(10)} | ` +
    `${'feed p50'.padStart(8)} ${'p95'.padStart(6)} ${'p99'.padStart(6)} | ${'cold p95'.padStart(8)} | ${'counts p95'.padStart(10)} | ` +
    `${'user p50'.padStart(8)} ${'p95'.padStart(6)} ${'p99'.padStart(6)} | items`,
);
for (const r of results) {
  console.log(
    `${String(r.users).padStart(8)} ${String(r.libraryRows).padStart(9)} ${(r.generateMs / 1000).toFixed(1).padStart(6)} ` +
      `${(r.precomputeMs / 1000).toFixed(1).padStart(6)} ${String(r.candidateRows).padStart(10)} | ` +
      `${r.feed.p50.toFixed(2).padStart(8)} ${r.feed.p95.toFixed(2).padStart(6)} ${r.feed.p99.toFixed(2).padStart(6)} | ` +
      `${r.cold.p95.toFixed(2).padStart(8)} | ${r.counts.p95.toFixed(2).padStart(10)} | ` +
      `${r.baseline.p50.toFixed(2).padStart(8)} ${r.baseline.p95.toFixed(2).padStart(6)} ${r.baseline.p99.toFixed(2).padStart(6)} | ` +
      `${r.feedItemsMean.toFixed(1)}`,
  );
}
console.log(
  `(${REQUESTS} feed and ${REQUESTS} baseline requests per population, ms; total ${Math.round((performance.now() - started) / 1000)} s)`,
);
const small = results.find((r) => r.users === 10_000);
const large = results.find((r) => r.users === 100_000);
const million = results.find((r) => r.users === 1_000_000);
console.log(
  JSON.stringify({
    feed_p95_ms_10k: small ? round(small.feed.p95) : null,
    feed_p95_ms_100k: large ? round(large.feed.p95) : null,
    baseline_p95_ms_100k: large ? round(large.baseline.p95) : null,
    precompute_s_100k: large ? round(large.precomputeMs / 1000) : null,
    feed_p95_ms_1m: million ? round(million.feed.p95) : null,
    cold_feed_p95_ms_1m: million ? round(million.cold.p95) : null,
    baseline_p95_ms_1m: million ? round(million.baseline.p95) : null,
    precompute_s_1m: million ? round(million.precomputeMs / 1000) : null,
    users: POPULATIONS,
    populations: results.map((r) => ({
      users: r.users,
      library_rows: r.libraryRows,
      precompute_s: round(r.precomputeMs / 1000),
      feed_p50_ms: round(r.feed.p50),
      feed_p95_ms: round(r.feed.p95),
      cold_feed_p95_ms: round(r.cold.p95),
      counts_p95_ms: round(r.counts.p95),
      baseline_p95_ms: round(r.baseline.p95),
      feed_items_mean: round(r.feedItemsMean),
    })),
  }),
);
process.exit(0);
