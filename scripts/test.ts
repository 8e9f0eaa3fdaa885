// `npm test`: static checks, then every test tier against real services:
//   static (typecheck + lint) -> shared + client (vitest) -> server (vitest, Postgres + Redis)
//   -> worker (vitest, Postgres + Redis + a real worker) -> smoke (every bench:* and eval:* script
//   at a tiny size, scripts/test/smoke.ts) -> e2e (Playwright in Chromium, full stack).
// `npm test -- --only server,e2e` runs some tiers. Ends with one line "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { buildClient } from './lib/client-build';
import { freePort, type LocalStack, recreateDatabase, startLocalStack } from './lib/local-stack';
import { type AppProcess, reapStaleAppProcesses, startAppProcess, waitForHealthy } from './lib/processes';
import { DEPLOY_CHECK_TOOLS, ensureDebianPackages, VIDEO_TOOLS } from './lib/system-packages';
import { runSmokeTier } from './test/smoke';

const root = process.cwd();
const log = (line: string) => console.log(`[test] ${line}`);
const TIERS = ['static', 'unit', 'server', 'worker', 'smoke', 'e2e'] as const;
type Tier = (typeof TIERS)[number];

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

async function cleanup() {
  await Promise.all(apps.map((a) => a.stop()));
  await stack?.stop();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanup().then(() => process.exit(130)));
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  log(`$ ${[command, ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  return result.status === 0;
}

const node = process.execPath;
const bin = (pkg: string, file: string) => path.join(root, 'node_modules', pkg, file);

async function tier(name: Tier, body: () => Promise<Omit<TierResult, 'tier' | 'seconds'>>) {
  if (!selected.has(name)) return;
  log(`---- ${name} ----`);
  const started = Date.now();
  let outcome: Omit<TierResult, 'tier' | 'seconds'>;
  try {
    outcome = await body();
  } catch (error) {
    console.error(`[test] ${name} could not run: ${(error as Error).stack ?? error}`);
    outcome = { ok: false, passed: 0, failed: 1 };
  }
  results.push({ tier: name, ...outcome, seconds: Math.round((Date.now() - started) / 100) / 10 });
}

function vitest(projects: string[], env: NodeJS.ProcessEnv): Omit<TierResult, 'tier' | 'seconds'> {
  const jsonFile = path.join(reportDir, `vitest-${projects.join('-')}.json`);
  fs.rmSync(jsonFile, { force: true });
  const ok = run(
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
  const report = fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, 'utf8')) : {};
  return {
    ok,
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + (ok ? 0 : report.numFailedTests ? 0 : 1),
  };
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

async function ensureStack(): Promise<LocalStack> {
  stack ??= await startLocalStack({
    dataDir: path.join(root, '.data/test'),
    database: 'postgres',
    persistRedis: false,
    log,
  });
  return stack;
}

try {
  await tier('static', async () => {
    const checks = [
      run(node, [bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json']),
      run(node, [bin('typescript', 'bin/tsc'), '-p', 'client/tsconfig.json']),
      run(node, [bin('@biomejs/biome', 'bin/biome'), 'ci', '.']),
      // The import boundaries must refuse a forbidden import (scripts/lint/boundary-probe.ts).
      run(node, ['--import', 'tsx', 'scripts/lint/boundary-probe.ts']),
    ];
    const passed = checks.filter(Boolean).length;
    return { ok: passed === checks.length, passed, failed: checks.length - passed };
  });

  await tier('unit', async () => vitest(['shared', 'client'], process.env));

  const serviceEnv = async (): Promise<NodeJS.ProcessEnv> => {
    // Uploads are checked with ffprobe; the worker renders with ffmpeg and espeak-ng; the server tier
    // also checks the deployment files (deploy/deploy-files.test.ts).
    ensureDebianPackages([...VIDEO_TOOLS, ...DEPLOY_CHECK_TOOLS], log);
    const s = await ensureStack();
    return { ...process.env, PODMATCH_TEST_POSTGRES: s.postgresBaseUrl, PODMATCH_TEST_REDIS: s.redisUrl };
  };
  await tier('server', async () => vitest(['server'], await serviceEnv()));
  await tier('worker', async () => vitest(['worker'], await serviceEnv()));

  // Every benchmark and the evaluation at a tiny size: each must run and print its figures.
  await tier('smoke', async () => {
    ensureDebianPackages(
      [{ binary: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', packages: ['chromium'] }, ...VIDEO_TOOLS],
      log,
    );
    const s = await ensureStack();
    return runSmokeTier({
      root,
      postgresBaseUrl: s.postgresBaseUrl,
      dataDir: path.join(root, '.data/test/smoke'),
      logDir: path.join(reportDir, 'smoke'),
      log,
    });
  });

  await tier('e2e', async () => {
    ensureDebianPackages(
      [{ binary: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', packages: ['chromium'] }, ...VIDEO_TOOLS],
      log,
    );
    const s = await ensureStack();
    const runDir = path.join(root, '.data/test/run');
    await reapStaleAppProcesses(runDir);
    const databaseUrl = await recreateDatabase(s.postgresBaseUrl, 'podmatch_e2e');
    const redisUrl = `${s.redisUrl}/4`;
    await prepareDatabase({ databaseUrl, redisUrl, seed: true, log });
    buildClient(root);
    const port = await freePort();
    // Spotify is a local stand-in (scripts/spotify-stand-in.ts) that speaks its OAuth and Web API.
    const spotifyPort = await freePort();
    const spotifyUrl = `http://127.0.0.1:${spotifyPort}`;
    // Bluesky: a local AT Protocol network (scripts/bluesky-stand-in.ts; PLC, handles, PDS, OAuth).
    const atprotoPort = await freePort();
    const atprotoUrl = `http://localhost:${atprotoPort}`;
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
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
      ATPROTO_PLC_URL: atprotoUrl,
      ATPROTO_HANDLE_RESOLVER: atprotoUrl,
      ATPROTO_CALLBACK_URL: `http://127.0.0.1:${port}/api/bluesky/callback`,
    };
    // Two server instances behind the local proxy (docs/operations.md, local multi-instance mode): the
    // browser tests run against the topology of a deployment; each browser sticks to one instance.
    const serverPorts = [await freePort(), await freePort()];
    const servers = serverPorts.map((serverPort, i) =>
      startAppProcess(
        'server',
        { ...env, PORT: String(serverPort), TRUST_PROXY: 'loopback' },
        runDir,
        `server-${i + 1}`,
      ),
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
    apps.push(...servers, startAppProcess('worker', env, runDir), spotify, atproto);
    await Promise.all(servers.map((s, i) => waitForHealthy(`http://127.0.0.1:${serverPorts[i]}`, s.child)));
    // Its own process: this one's event loop is blocked while Playwright runs.
    const proxy = startAppProcess(
      'local-proxy',
      { ...process.env, PORT: String(port), HOST: '127.0.0.1', PROXY_TARGETS: serverPorts.join(',') },
      runDir,
    );
    apps.push(proxy);
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitForHealthy(baseUrl, proxy.child);
    await waitForUrl(`${spotifyUrl}/v1/me`, spotify.child);
    await waitForUrl(`${atprotoUrl}/.well-known/oauth-authorization-server`, atproto.child);
    const jsonFile = path.join(reportDir, 'playwright.json');
    fs.rmSync(jsonFile, { force: true });
    const ok = run(
      node,
      [bin('@playwright/test', 'cli.js'), 'test', '-c', 'client/e2e/playwright.config.ts', '--reporter=list,json'],
      {
        ...process.env,
        E2E_BASE_URL: baseUrl,
        // For the feed fixture (client/e2e/helpers.ts shareAShow).
        E2E_DATABASE_URL: databaseUrl,
        PLAYWRIGHT_JSON_OUTPUT_NAME: jsonFile,
      },
    );
    await Promise.all(apps.splice(0).map((a) => a.stop()));
    const stats = fs.existsSync(jsonFile) ? (JSON.parse(fs.readFileSync(jsonFile, 'utf8')).stats ?? {}) : {};
    return { ok, passed: stats.expected ?? 0, failed: (stats.unexpected ?? 0) + (ok || stats.unexpected ? 0 : 1) };
  });
} finally {
  await cleanup();
}

console.log('\n[test] tier      result  passed  failed  seconds');
for (const r of results) {
  console.log(
    `[test] ${r.tier.padEnd(9)} ${(r.ok ? 'ok' : 'FAILED').padEnd(7)} ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.seconds).padStart(7)}`,
  );
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const allOk = results.every((r) => r.ok) && results.length === selected.size;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(allOk ? 0 : 1);
