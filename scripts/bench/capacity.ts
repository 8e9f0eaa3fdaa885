// Capacity, measured (docs/operations.md, "Capacity and sizing"): the knee of the chat path, the
// highest message rate at which p99 send-to-receive latency stays at or below CAPACITY_P99_MS with
// nothing lost or failed, for one and two server instances (bench:chat runs, each a fresh set of
// people) beside the bare Socket.IO relay's knee; and PostgreSQL's own ceiling for the message insert
// on this machine (pgbench running the app's chat_store_message on many matches at once). Doubles the
// rate from CAPACITY_START_RATE until a run misses, then halves the gap CAPACITY_STEPS times.
// Prints a table and, last, one JSON line. Usage: npm run bench:capacity
// Knobs: CAPACITY_TARGETS=relay,one,two,postgres CAPACITY_START_RATE=50 CAPACITY_MAX_RATE=6400
// CAPACITY_STEPS=3 CAPACITY_SECONDS=10 CAPACITY_CLIENTS=400 CAPACITY_P99_MS=50
// CAPACITY_PG_CLIENTS=16 CAPACITY_PG_SECONDS=10 CAPACITY_PG_MATCHES=1000; BENCH_POSTGRES / BENCH_REDIS
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { initOrm, migrate } from '@server/core/db/orm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { benchServices } from '../lib/bench-services';
import { recreateDatabase } from '../lib/local-stack';
import { DEBIAN_POSTGRES_TOOLS, DEBIAN_POSTGRES_VERSION, ensureDebianPackages } from '../lib/system-packages';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TARGETS = (process.env.CAPACITY_TARGETS ?? 'relay,one,two,postgres').split(',').map((t) => t.trim());
const START_RATE = num('CAPACITY_START_RATE', 50);
const MAX_RATE = num('CAPACITY_MAX_RATE', 6400);
const STEPS = num('CAPACITY_STEPS', 3);
const SECONDS = num('CAPACITY_SECONDS', 10);
const CLIENTS = num('CAPACITY_CLIENTS', 400);
const P99_MS = num('CAPACITY_P99_MS', 50);
const PG_CLIENTS = num('CAPACITY_PG_CLIENTS', 16);
const PG_SECONDS = num('CAPACITY_PG_SECONDS', 10);
const PG_MATCHES = num('CAPACITY_PG_MATCHES', 1000);
const DATA_DIR = path.join(ROOT, '.data/bench-capacity');

const log = (line: string) => console.log(`[capacity] ${line}`);

interface Probe {
  rate: number;
  ok: boolean;
  p99: number;
  why: string;
}

/** One bench:chat run at `rate` messages per second; its JSON line, or why it has none. */
async function chatRun(rate: number, extra: Record<string, string>, services: Record<string, string>): Promise<Probe> {
  const redis = new Redis(services.BENCH_REDIS as string);
  await redis.flushdb();
  redis.disconnect();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/chat.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...services,
      BENCH_RATE: String(rate),
      BENCH_CLIENTS: String(CLIENTS),
      BENCH_SECONDS: String(SECONDS),
      BENCH_WARMUP_SECONDS: String(Math.min(3, SECONDS)),
      BENCH_GRACE_SECONDS: '3',
      BENCH_LATENCY_TARGETS: 'off',
      // Its own pid files and database: a bench:chat running beside this one is left alone.
      BENCH_CHAT_RUN: 'capacity',
      ...extra,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let last = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const line of chunk.split('\n')) if (line.trim()) last = line.trim();
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  let result: Record<string, number>;
  try {
    result = JSON.parse(last);
  } catch {
    return { rate, ok: false, p99: Number.NaN, why: `no result (exit ${code}): ${last.slice(0, 160)}` };
  }
  const relayOnly = extra.BENCH_ONLY === 'relay';
  const p99 = relayOnly ? (result.relay_p99_ms as number) : (result.p99_ms as number);
  const lost = relayOnly ? (code === 0 ? 0 : 1) : (result.lost as number) + (result.failed_acks as number);
  const why = lost > 0 ? `lost or failed ${lost}` : p99 > P99_MS ? `p99 ${p99} ms` : '';
  return { rate, ok: why === '', p99, why };
}

/** The highest rate that passes: doubling from START_RATE, then STEPS halvings of the gap. */
async function knee(name: string, probe: (rate: number) => Promise<Probe>) {
  const probes: Probe[] = [];
  const run = async (rate: number) => {
    const p = await probe(rate);
    probes.push(p);
    log(`${name}: ${rate}/s -> p99 ${p.p99} ms ${p.ok ? 'ok' : `MISSED (${p.why})`}`);
    return p;
  };
  let good = 0;
  let bad = Number.POSITIVE_INFINITY;
  for (let rate = START_RATE; rate <= MAX_RATE; rate *= 2) {
    if ((await run(rate)).ok) good = rate;
    else {
      bad = rate;
      break;
    }
  }
  for (let i = 0; i < STEPS && Number.isFinite(bad) && bad - good > 1; i++) {
    const mid = Math.round((good + bad) / 2);
    if ((await run(mid)).ok) good = mid;
    else bad = mid;
  }
  const at = probes.find((p) => p.rate === good);
  return {
    knee_rate: good,
    p99_ms_at_knee: at?.p99 ?? Number.NaN,
    first_miss: Number.isFinite(bad) ? bad : null,
    probes: probes.length,
  };
}

/** PostgreSQL's ceiling for the message insert: pgbench calling chat_store_message on PG_MATCHES matches. */
async function postgresCeiling(postgresBaseUrl: string) {
  ensureDebianPackages(DEBIAN_POSTGRES_TOOLS, log);
  const pgbench = `/usr/lib/postgresql/${DEBIAN_POSTGRES_VERSION}/bin/pgbench`;
  const databaseUrl = await recreateDatabase(postgresBaseUrl, 'podmatch_bench_capacity');
  const orm = await initOrm(databaseUrl);
  await migrate(orm);
  await orm.close();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Two people per match, mutual: the rows chat_store_message locks, numbers and inserts into.
    await client.query(
      `insert into users (username, password, display_name, sign_up_method, match_preferences, created_at, updated_at)
       select 'cap' || i, 'x', 'cap' || i, 'dev_login', '{"minMatchPercentage":0}', now(), now()
         from generate_series(1, $1::int * 2) i`,
      [PG_MATCHES],
    );
    await client.query(
      `insert into matches (user1_id, user2_id, intent, user1_liked, user2_liked, mutual_at, created_at)
       select u1.id, u2.id, 'romantic', true, true, now(), now()
         from generate_series(1, $1::int) i
         join users u1 on u1.username = 'cap' || (2 * i - 1)
         join users u2 on u2.username = 'cap' || (2 * i)`,
      [PG_MATCHES],
    );
  } finally {
    await client.end();
  }
  const script = path.join(os.tmpdir(), `podmatch-capacity-${process.pid}.sql`);
  fs.writeFileSync(
    script,
    [
      `\\set n random(1, ${PG_MATCHES})`,
      // A fresh database: the matches are ids 1..PG_MATCHES.
      `select * from chat_store_message(:n, (select user1_id from matches where id = :n), 'capacity',`,
      `  gen_random_uuid(), false);`,
      '',
    ].join('\n'),
  );
  const url = new URL(databaseUrl);
  const result = spawnSync(
    pgbench,
    [
      '-n',
      '-c',
      String(PG_CLIENTS),
      '-j',
      String(Math.min(PG_CLIENTS, 2)),
      '-T',
      String(PG_SECONDS),
      '-r',
      '-f',
      script,
    ],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        PGHOST: url.hostname,
        PGPORT: url.port,
        PGUSER: decodeURIComponent(url.username),
        PGPASSWORD: decodeURIComponent(url.password),
        PGDATABASE: url.pathname.slice(1),
      },
    },
  );
  fs.rmSync(script, { force: true });
  const tps = /tps = ([\d.]+)/.exec(result.stdout ?? '');
  const latency = /latency average = ([\d.]+) ms/.exec(result.stdout ?? '');
  if (result.status !== 0 || !tps) throw new Error(`pgbench failed: ${result.stderr || result.stdout}`);
  return {
    inserts_per_second: Math.round(Number(tps[1])),
    latency_avg_ms: Number(latency?.[1] ?? Number.NaN),
    clients: PG_CLIENTS,
    seconds: PG_SECONDS,
    pgbench: DEBIAN_POSTGRES_VERSION,
  };
}

const services = await benchServices({ dataDir: DATA_DIR, database: 'postgres', persistRedis: false, log });
const env = { BENCH_POSTGRES: services.postgresBaseUrl, BENCH_REDIS: services.redisUrl };
const result: Record<string, unknown> = { p99_target_ms: P99_MS, clients: CLIENTS, seconds: SECONDS };
let code = 0;
try {
  if (TARGETS.includes('relay')) result.relay = await knee('relay', (r) => chatRun(r, { BENCH_ONLY: 'relay' }, env));
  if (TARGETS.includes('one'))
    result.one_instance = await knee('one instance', (r) => chatRun(r, { BENCH_INSTANCES: '1' }, env));
  if (TARGETS.includes('two')) result.two_instances = await knee('two instances', (r) => chatRun(r, {}, env));
  if (TARGETS.includes('postgres')) result.postgres = await postgresCeiling(services.postgresBaseUrl);
} catch (error) {
  console.error(error);
  code = 1;
} finally {
  await services.stop();
}
console.log('');
console.log(
  `knee = highest messages/s with p99 <= ${P99_MS} ms and nothing lost (${CLIENTS} clients, ${SECONDS} s runs)`,
);
for (const [name, value] of Object.entries(result)) {
  if (value && typeof value === 'object') console.log(`${name.padEnd(14)} ${JSON.stringify(value)}`);
}
console.log(JSON.stringify(result));
process.exit(code);
