// `npm test`: static checks, then every test tier against real services:
//   static (typecheck + lint), unit (shared + client, vitest), server (vitest, Postgres + Redis),
//   worker (vitest, Postgres + Redis + real workers), faults (vitest: processes killed and services
//   restarted), smoke (every bench:* and eval:* script at a tiny size, scripts/test/smoke.ts), e2e
//   (Playwright in Chromium, full stack). PHASES below says which run side by side.
// `npm test -- --only server,e2e` runs some tiers. Ends with one line "N passed, N failed".
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { prepareDatabase } from '@server/core/db/prepare-database';
import webpush from 'web-push';
import { buildProduction } from './build';
import { type LoadBalancer, startLoadBalancer } from './lib/load-balancer';
import {
  freePort,
  type LocalStack,
  recreateDatabase,
  startLocalStack,
  TEST_POSTGRES_SETTINGS,
} from './lib/local-stack';
import { type PgBouncer, startPgBouncer } from './lib/pgbouncer';
import { type AppProcess, reapStaleAppProcesses, startAppProcess, waitForHealthy } from './lib/processes';
import {
  DEBIAN_POSTGRES_TOOLS,
  DEPLOY_CHECK_TOOLS,
  ensureDebianPackages,
  SENTINEL_TOOLS,
  VIDEO_TOOLS,
} from './lib/system-packages';
import { runSmokeTier } from './test/smoke';

const root = process.cwd();
const log = (line: string) => console.log(`[test] ${line}`);
const TIERS = ['static', 'unit', 'server', 'worker', 'faults', 'smoke', 'e2e'] as const;
type Tier = (typeof TIERS)[number];

/**
 * The tiers in order; the tiers of one phase run side by side, each with its output in
 * test-results/<tier>.log, printed whole when it ends. Service tiers of one phase (server and
 * worker) run in one vitest call instead, so their test files share its workers (maxWorkers in
 * vitest.config.ts) and the machine. The fault tests time outages of their own: beside the server
 * and worker files they took four times as long, and beside the smoke runs a third longer, which
 * saved nothing (185 s with smoke against 136 + 51 s one after the other). The smoke runs print
 * timings and the browser tests run against one shared stack: each of those phases has the machine
 * to itself.
 */
const PHASES: Tier[][] = [['static', 'unit'], ['server', 'worker'], ['faults'], ['smoke'], ['e2e']];
/** The vitest projects that are tiers of their own (vitest.config.ts). */
const SERVICE_TIERS = new Set<Tier>(['server', 'worker', 'faults']);

const onlyArg = process.argv.indexOf('--only');
const selected = new Set<Tier>(
  onlyArg >= 0 ? ((process.argv[onlyArg + 1] ?? '').split(',').filter(Boolean) as Tier[]) : [...TIERS],
);
const reportDir = path.join(root, 'test-results');
fs.mkdirSync(reportDir, { recursive: true });

interface TierResult {
  tier: Tier;
  ok: boolean;
  passed: number;
  failed: number;
  seconds: number;
}
const results: TierResult[] = [];
let stack: LocalStack | undefined;
const apps: AppProcess[] = [];

/** The tiers' commands still running, stopped if this process is. */
const running = new Set<ChildProcess>();

async function cleanup() {
  for (const child of running) child.kill('SIGTERM');
  await Promise.all(apps.map((a) => a.stop()));
  await balancer?.close();
  await pooler?.stop();
  await stack?.stop();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanup().then(() => process.exit(130)));
}

/** Where a tier's commands write: the terminal, or its log file when it runs beside another tier. */
type Output = 'inherit' | number;

function run(output: Output, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const line = `[test] $ ${[command, ...args].join(' ')}\n`;
  if (output === 'inherit') process.stdout.write(line);
  else fs.writeSync(output, line);
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', output, output], env });
    running.add(child);
    child.once('error', () => resolve(false));
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code === 0);
    });
  });
}

const node = process.execPath;
const bin = (pkg: string, file: string) => path.join(root, 'node_modules', pkg, file);

/** A tier's result; `seconds` when it ended before the call that ran it (tiers sharing a vitest call). */
type Outcome = Omit<TierResult, 'tier' | 'seconds'> & { seconds?: number };

/** Runs `body` for these tiers (one, or service tiers sharing one vitest call) and records each. */
async function record(tiers: Tier[], output: Output, body: (output: Output) => Promise<Outcome[]>): Promise<void> {
  const started = Date.now();
  let outcomes: Outcome[];
  try {
    outcomes = await body(output);
  } catch (error) {
    const message = `[test] ${tiers.join(' + ')} could not run: ${(error as Error).stack ?? error}\n`;
    if (output === 'inherit') process.stderr.write(message);
    else fs.writeSync(output, message);
    outcomes = tiers.map(() => ({ ok: false, passed: 0, failed: 1 }));
  }
  const seconds = (Date.now() - started) / 1000;
  tiers.forEach((tier, i) => {
    const outcome = outcomes[i] ?? { ok: false, passed: 0, failed: 1 };
    results.push({ tier, ...outcome, seconds: Math.round((outcome.seconds ?? seconds) * 10) / 10 });
  });
}

/** Runs the selected tiers of a phase; beside each other, each one's output goes to its log file. */
async function phase(tiers: Tier[]): Promise<void> {
  const chosen = tiers.filter((t) => selected.has(t));
  const services = chosen.filter((t) => SERVICE_TIERS.has(t));
  const runs: { tiers: Tier[]; body: (output: Output) => Promise<Outcome[]> }[] = [
    ...chosen
      .filter((t): t is keyof typeof bodies => !SERVICE_TIERS.has(t))
      .map((t) => ({ tiers: [t], body: bodies[t] })),
    ...(services.length > 0
      ? [{ tiers: services, body: async (output: Output) => vitest(output, services, await serviceEnv()) }]
      : []),
  ];
  if (runs.length === 0) return;
  if (runs.length === 1) {
    const [only] = runs as [(typeof runs)[number]];
    log(`---- ${only.tiers.join(' + ')} ----`);
    return record(only.tiers, 'inherit', only.body);
  }
  log(`---- ${chosen.join(' + ')} (side by side; output in test-results/<tier>.log, printed as each ends) ----`);
  await Promise.all(
    runs.map(async ({ tiers: these, body }) => {
      const file = path.join(reportDir, `${these.join('+')}.log`);
      const fd = fs.openSync(file, 'w');
      try {
        await record(these, fd, body);
      } finally {
        fs.closeSync(fd);
      }
      log(`---- ${these.join(' + ')} (${file}) ----`);
      process.stdout.write(fs.readFileSync(file));
    }),
  );
}

/** One vitest call for these projects; the outcome of each, from the JSON report. */
async function vitest(output: Output, projects: string[], env: NodeJS.ProcessEnv): Promise<Outcome[]> {
  const jsonFile = path.join(reportDir, `vitest-${projects.join('-')}.json`);
  fs.rmSync(jsonFile, { force: true });
  const started = Date.now();
  const ok = await run(
    output,
    node,
    [
      bin('vitest', 'vitest.mjs'),
      'run',
      ...projects.flatMap((p) => ['--project', p]),
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${jsonFile}`,
    ],
    env,
  );
  const report: VitestReport = fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, 'utf8')) : {};
  return projects.map((project) => {
    const files = (report.testResults ?? []).filter((f) => projects.length === 1 || projectOf(f.name) === project);
    const count = (status: string) =>
      files.reduce((n, f) => n + f.assertionResults.filter((a) => a.status === status).length, 0);
    // A file that failed without failed tests (an error while loading it, a failed hook) counts once.
    const broken = files.filter((f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed'));
    const failed = count('failed') + broken.length;
    const passed = count('passed');
    const projectOk = ok || (projects.length > 1 && failed === 0 && files.length > 0);
    const endedAt = Math.max(...files.map((f) => f.endTime));
    return {
      ok: projectOk,
      passed,
      failed: failed + (projectOk || failed ? 0 : 1),
      ...(projects.length > 1 && files.length > 0 ? { seconds: (endedAt - started) / 1000 } : {}),
    };
  });
}

interface VitestReport {
  testResults?: { name: string; status: string; endTime: number; assertionResults: { status: string }[] }[];
}

/** The project of a test file, by its folder (the projects' `include`, vitest.config.ts). */
function projectOf(file: string): string {
  const top = path.relative(root, file).split(path.sep)[0];
  return top === 'worker' || top === 'shared' || top === 'client' ? top : 'server';
}

/** Waits until something answers at this URL (any HTTP status), or the process exits. */
async function waitForUrl(url: string, child: AppProcess['child'], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (code ${child.exitCode})`);
    const answered = await fetch(url).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000}s`);
}

let stackStarting: Promise<LocalStack> | undefined;
/** One local stack for the service tiers, started by the first that needs it. */
function ensureStack(): Promise<LocalStack> {
  stackStarting ??= startLocalStack({
    dataDir: path.join(root, '.data/test'),
    database: 'postgres',
    persistRedis: false,
    postgresSettings: TEST_POSTGRES_SETTINGS,
    log,
  }).then((started) => {
    stack = started;
    return started;
  });
  return stackStarting;
}

// Uploads are checked with ffprobe; the worker renders with ffmpeg and espeak-ng; the server tier
// also checks the deployment files (deploy/deploy-files.test.ts) and round-trips a backup
// (deploy/backup.test.ts). Installed once here, not by test files side by side.
async function serviceEnv(): Promise<NodeJS.ProcessEnv> {
  ensureDebianPackages([...VIDEO_TOOLS, ...DEPLOY_CHECK_TOOLS, ...DEBIAN_POSTGRES_TOOLS, ...SENTINEL_TOOLS], log);
  const s = await ensureStack();
  // The cluster; each vitest tier starts the Redis servers of its own (scripts/test/stack-setup.ts).
  return { ...process.env, PODMATCH_TEST_POSTGRES: s.postgresBaseUrl };
}

/** What each tier other than the service tiers runs (those run in vitest calls, see phase()). */
const bodies: Record<Exclude<Tier, 'server' | 'worker' | 'faults'>, (output: Output) => Promise<Outcome[]>> = {
  static: async (output) => {
    const checks = [
      await run(output, node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']),
      await run(output, node, [bin('typescript', 'bin/tsc'), '-p', 'client/tsconfig.json']),
      await run(output, node, [bin('@biomejs/biome', 'bin/biome'), 'ci', '.']),
      // The import boundaries must refuse a forbidden import (scripts/lint/boundary-probe.ts).
      await run(output, node, ['--import', 'tsx', 'scripts/lint/boundary-probe.ts']),
    ];
    const passed = checks.filter(Boolean).length;
    return [{ ok: passed === checks.length, passed, failed: checks.length - passed }];
  },

  unit: async (output) => {
    const [shared, client] = (await vitest(output, ['shared', 'client'], process.env)) as [Outcome, Outcome];
    return [
      { ok: shared.ok && client.ok, passed: shared.passed + client.passed, failed: shared.failed + client.failed },
    ];
  },

  // Every benchmark and the evaluation at a tiny size: each must run and print its figures.
  smoke: async () => {
    ensureDebianPackages(
      [{ binary: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', packages: ['chromium'] }, ...VIDEO_TOOLS],
      log,
    );
    const s = await ensureStack();
    await buildClientOnce();
    return [
      await runSmokeTier({
        root,
        postgresBaseUrl: s.postgresBaseUrl,
        dataDir: path.join(root, '.data/test/smoke'),
        logDir: path.join(reportDir, 'smoke'),
        log,
      }),
    ];
  },

  e2e: async (output) => {
    const { playwrightEnv } = await (e2eStack ?? startE2eStack());
    const jsonFile = path.join(reportDir, 'playwright.json');
    fs.rmSync(jsonFile, { force: true });
    const ok = await run(
      output,
      node,
      [
        bin('@playwright/test', 'cli.js'),
        'test',
        '-c',
        'client/e2e/playwright.config.ts',
        '--reporter=list,json',
        // Some spec files only: E2E_SPECS="chat matches" (Playwright's file filters).
        ...(process.env.E2E_SPECS ?? '').split(/\s+/).filter(Boolean),
      ],
      { ...process.env, ...playwrightEnv, PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile },
    );
    await Promise.all(apps.splice(0).map((a) => a.stop()));
    const stats = fs.existsSync(jsonFile) ? (JSON.parse(fs.readFileSync(jsonFile, 'utf8')).stats ?? {}) : {};
    return [{ ok, passed: stats.expected ?? 0, failed: (stats.unexpected ?? 0) + (ok || stats.unexpected ? 0 : 1) }];
  },
};

/**
 * The client, built once for the smoke and browser tiers (test-results/client-build.log), beside the
 * first phase: a build takes a core for about ten seconds.
 */
let clientBuild: Promise<void> | undefined;
function buildClientOnce(): Promise<void> {
  clientBuild ??= (async () => {
    const file = path.join(reportDir, 'client-build.log');
    const fd = fs.openSync(file, 'w');
    try {
      const built = await run(fd, node, [bin('vite', 'bin/vite.js'), 'build', '--config', 'client/vite.config.ts']);
      if (!built) throw new Error(`Building the client failed; see ${file}.`);
    } finally {
      fs.closeSync(fd);
    }
  })();
  return clientBuild;
}

/**
 * The browser tests' stack: a seeded database, two server instances behind HAProxy, a worker,
 * a production server and the stand-ins. Started while the fault tests run (they leave a core idle),
 * so the browser tier starts with it ready.
 */
let e2eStack: ReturnType<typeof startE2eStack> | undefined;
let pooler: PgBouncer | undefined;
let balancer: LoadBalancer | undefined;
async function startE2eStack(): Promise<{ playwrightEnv: NodeJS.ProcessEnv }> {
  ensureDebianPackages(
    [{ binary: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', packages: ['chromium'] }, ...VIDEO_TOOLS],
    log,
  );
  const s = await ensureStack();
  const runDir = path.join(root, '.data/test/run');
  await reapStaleAppProcesses(runDir);
  const databaseUrl = await recreateDatabase(s.postgresBaseUrl, 'podmatch_e2e');
  const redisUrl = `${s.redisUrl}/4`;
  await prepareDatabase({ databaseUrl, redisUrl, seed: true, log: () => undefined });
  // The app reaches PostgreSQL through PgBouncer in transaction mode, as a deployment with many
  // instances does (docs/operations.md, "A connection pooler"): four processes with pools of 10
  // share 20 server connections, so a session lock or setting would break these tests.
  pooler = await startPgBouncer({
    upstreamUrl: s.postgresBaseUrl,
    poolSize: 20,
    pidFile: path.join(runDir, 'pgbouncer.pid'),
    log,
  });
  const appDatabaseUrl = pooler.url('podmatch_e2e');
  await buildClientOnce();
  const port = await freePort();
  // Spotify is a local stand-in (scripts/spotify-stand-in.ts) that speaks its OAuth and Web API.
  const spotifyPort = await freePort();
  const spotifyUrl = `http://127.0.0.1:${spotifyPort}`;
  // Bluesky: a local AT Protocol network (scripts/bluesky-stand-in.ts; PLC, handles, PDS, OAuth).
  const atprotoPort = await freePort();
  const atprotoUrl = `http://localhost:${atprotoPort}`;
  const vapid = webpush.generateVAPIDKeys();
  const env = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: appDatabaseUrl,
    REDIS_URL: redisUrl,
    MEDIA_DIR: path.join(root, '.data/test/media'),
    LOG_LEVEL: 'warn',
    // Demo people answer likes within seconds, not minutes (docs/matches.md, "Demo people").
    DEMO_REPLY_DELAY_SECONDS: '1-3',
    // 60 demo intros would take the CPU the browser tests need; the worker tier tests them.
    DEMO_VIDEOS: 'off',
    // Every browser test signs in and acts from 127.0.0.1 (docs/security.md, rate limits).
    RATE_LIMIT_SCALE: '100',
    SPOTIFY_CLIENT_ID: 'stand-in-client-id',
    SPOTIFY_REDIRECT_URI: `http://127.0.0.1:${port}/api/spotify/callback`,
    SPOTIFY_ACCOUNTS_URL: spotifyUrl,
    SPOTIFY_API_URL: `${spotifyUrl}/v1`,
    // Required whenever Spotify is configured (docs/spotify.md): a fresh one per run.
    TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    // One for both server instances and the worker: a URL one hands out is served by the other.
    IMAGE_PROXY_KEY: randomBytes(32).toString('base64'),
    // Push notifications on (docs/notifications.md): the browser tests post to a local push service.
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    ATPROTO_PLC_URL: atprotoUrl,
    ATPROTO_HANDLE_RESOLVER: atprotoUrl,
    ATPROTO_CALLBACK_URL: `http://127.0.0.1:${port}/api/bluesky/callback`,
  };
  // Two server instances behind HAProxy (docs/operations.md, local multi-instance mode): the
  // browser tests run against the topology of a deployment; each browser sticks to one instance.
  const serverPorts = [await freePort(), await freePort()];
  const servers = serverPorts.map((serverPort, i) =>
    startAppProcess('server', { ...env, PORT: String(serverPort), TRUST_PROXY: 'loopback' }, runDir, `server-${i + 1}`),
  );
  const spotify = startAppProcess(
    'spotify-stand-in',
    { ...process.env, SPOTIFY_STAND_IN_PORT: String(spotifyPort) },
    runDir,
  );
  const atproto = startAppProcess(
    'bluesky-stand-in',
    { ...process.env, ATPROTO_STAND_IN_PORT: String(atprotoPort) },
    runDir,
  );
  // Mail goes through a real SMTP server (scripts/smtp-stand-in.ts) for the production server below.
  const smtpPort = await freePort();
  const smtpHttpPort = await freePort();
  const smtp = startAppProcess(
    'smtp-stand-in',
    { ...process.env, SMTP_STAND_IN_PORT: String(smtpPort), SMTP_STAND_IN_HTTP_PORT: String(smtpHttpPort) },
    runDir,
  );
  // One server as a deployment runs it (client/e2e/production.spec.ts): the production build's
  // bundle with plain node (scripts/build.ts), NODE_ENV=production, a PUBLIC_URL (the passkeys'
  // relying party), mail through SMTP, Bluesky, no development login, no Spotify.
  await buildProduction({ out: path.join(root, '.data/test/dist'), skipClient: true });
  const productionPort = await freePort();
  const productionUrl = `http://localhost:${productionPort}`;
  const production = startAppProcess(
    'server-bundle',
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      PORT: String(productionPort),
      HOST: '127.0.0.1',
      PUBLIC_URL: productionUrl,
      DATABASE_URL: appDatabaseUrl,
      REDIS_URL: redisUrl,
      MEDIA_DIR: env.MEDIA_DIR,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_SCALE: '100',
      TOKEN_ENCRYPTION_KEY: env.TOKEN_ENCRYPTION_KEY,
      IMAGE_PROXY_KEY: env.IMAGE_PROXY_KEY,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'PodMatch <no-reply@podmatch.test>',
      // Bluesky through the AT Protocol stand-in: the loopback client (PUBLIC_URL is on this
      // machine), and the stand-in's plain-http loopback address allowed as for a staging PDS.
      ATPROTO_PLC_URL: atprotoUrl,
      ATPROTO_HANDLE_RESOLVER: atprotoUrl,
      ATPROTO_ALLOW_PRIVATE_ADDRESSES: 'true',
      // No load balancer to tell before it stops (production's default waits 5 s).
      DRAIN_NOTICE_SECONDS: '0',
    },
    runDir,
    'server-production',
  );
  apps.push(...servers, startAppProcess('worker', env, runDir), spotify, atproto, smtp, production);
  await Promise.all(servers.map((s, i) => waitForHealthy(`http://127.0.0.1:${serverPorts[i]}`, s.child)));
  await waitForUrl(`${productionUrl}/api/auth/methods`, production.child);
  await waitForUrl(`http://127.0.0.1:${smtpHttpPort}/latest`, smtp.child);
  // HAProxy from deploy/haproxy.cfg, as compose runs it (docs/operations.md, local multi-instance mode).
  balancer = await startLoadBalancer({
    port,
    targets: serverPorts,
    pidFile: path.join(runDir, 'haproxy.pid'),
    log,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  // Both instances pass HAProxy's health check before a browser arrives.
  for (const deadline = Date.now() + 30_000; (await balancer.up()).length < serverPorts.length; ) {
    if (Date.now() > deadline) throw new Error(`HAProxy sees only instances ${await balancer.up()} as up`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await waitForUrl(`${spotifyUrl}/v1/me`, spotify.child);
  await waitForUrl(`${atprotoUrl}/.well-known/oauth-authorization-server`, atproto.child);
  return {
    playwrightEnv: {
      E2E_BASE_URL: baseUrl,
      E2E_PRODUCTION_URL: productionUrl,
      E2E_SMTP_MESSAGES_URL: `http://127.0.0.1:${smtpHttpPort}/latest?to=`,
      // For the feed fixture (client/e2e/helpers.ts shareAShow).
      E2E_DATABASE_URL: databaseUrl,
    },
  };
}

if (selected.has('smoke') || selected.has('e2e')) buildClientOnce().catch(() => undefined);
try {
  for (const tiers of PHASES) {
    // The bundle test (server tier) copies client/dist: never while the early build is writing it.
    if (tiers.includes('server') && clientBuild) await clientBuild.catch(() => undefined);
    if (tiers.includes('faults') && selected.has('e2e')) {
      e2eStack = startE2eStack();
      e2eStack.catch(() => undefined);
    }
    await phase(tiers);
  }
} finally {
  await cleanup();
}

console.log('\n[test] tier      result  passed  failed  seconds');
for (const r of results.sort((a, b) => TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier))) {
  console.log(
    `[test] ${r.tier.padEnd(9)} ${(r.ok ? 'ok' : 'FAILED').padEnd(7)} ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.seconds).padStart(7)}`,
  );
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const allOk = results.every((r) => r.ok) && results.length === selected.size;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(allOk ? 0 : 1);
