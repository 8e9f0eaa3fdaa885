// `npm test`'s smoke tier: every `bench:*` and `eval:*` script of package.json, at a tiny size (seconds
// each), against the suite's PostgreSQL (each script makes its own database) and a redis-server of
// its own (BENCH_POSTGRES / BENCH_REDIS, scripts/lib/bench-services.ts): Redis databases do not
// separate pub/sub, so two runs on one server would receive each other's socket events. A run fails
// when the script exits non-zero, or when its last line is not its JSON result holding the figures
// named here: a script that breaks, or measures nothing, fails the suite instead of rotting until
// someone runs it (the evaluation once answered 0.000 unnoticed). The sizes check that each script
// works end to end, not the figures themselves: targets that depend on this machine's load
// (Lighthouse's performance score, chat latency) are off here; the evaluation's quality targets are
// not (its tiny population still has to meet them).
// Full-size runs: README.md, "Benchmarks", and docs/performance.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startRedis } from '../lib/local-stack';
import { mapLimit } from '../lib/map-limit';

export interface SmokeRun {
  /** The package.json script. */
  script: string;
  /** Its size knobs, set to tiny. */
  env: Record<string, string>;
  /** Dotted paths into the JSON result line that must hold finite numbers. */
  figures: string[];
}

/** Longest first, so that two lanes end at about the same time. */
export const SMOKE_RUNS: readonly SmokeRun[] = [
  {
    script: 'bench:lighthouse',
    // The feed page only (sign-in, library, feed card), scored but not held to a minimum.
    env: { LIGHTHOUSE_PAGES: 'feed', LIGHTHOUSE_MIN_PERFORMANCE: '0' },
    figures: ['pages.0.performance', 'pages.0.lcpMs'],
  },
  {
    script: 'bench:chat',
    env: {
      BENCH_CLIENTS: '20',
      BENCH_RATE: '20',
      BENCH_SECONDS: '3',
      BENCH_WARMUP_SECONDS: '1',
      BENCH_GRACE_SECONDS: '2',
      BENCH_LATENCY_TARGETS: 'off',
    },
    figures: ['p99_ms', 'relay_p99_ms', 'sent', 'server_rss_mb'],
  },
  {
    script: 'bench:video',
    // One render through the worker, no warm-up.
    env: { BENCH_RUNS: '1', BENCH_WARMUP: '0' },
    figures: ['render_s', 'first_progress_ms', 'video_s'],
  },
  {
    script: 'eval:matching',
    // 60 people in 3 communities, loaded through dev login, OPML upload and real feed reads.
    env: { EVAL_SIZES: 'tiny' },
    figures: ['precision_at_10', 'idf_cosine', 'jaccard', 'agreement_with_full', 'populations.0.feeds_read'],
  },
  {
    // One probe each of the relay, one instance and PostgreSQL's insert ceiling (two instances is the
    // same code path as bench:chat's own run above).
    script: 'bench:capacity',
    env: {
      CAPACITY_TARGETS: 'relay,one,postgres',
      CAPACITY_START_RATE: '10',
      CAPACITY_MAX_RATE: '10',
      CAPACITY_STEPS: '0',
      CAPACITY_SECONDS: '2',
      CAPACITY_CLIENTS: '20',
      CAPACITY_P99_MS: '60000',
      CAPACITY_PG_SECONDS: '2',
      CAPACITY_PG_MATCHES: '100',
    },
    figures: ['relay.knee_rate', 'one_instance.knee_rate', 'postgres.inserts_per_second'],
  },
  {
    script: 'bench:api',
    env: { BENCH_USERS: '20', BENCH_CONCURRENCY: '10', BENCH_SECONDS: '3', BENCH_SIGNUP_PERCENT: '5' },
    figures: ['requests', 'rps', 'ops.feed.p95_ms', 'ops.like.count', 'likes_knee.likes_per_second'],
  },
  {
    script: 'bench:feed',
    env: { BENCH_USERS: '300', BENCH_PODCASTS: '2000', BENCH_SAMPLE_USERS: '20', BENCH_REQUESTS: '30' },
    figures: ['populations.0.precompute_s', 'populations.0.feed_p95_ms', 'populations.0.baseline_p95_ms'],
  },
];

/** A run still going after this is stopped (SIGINT, then SIGKILL) and fails. */
const RUN_LIMIT_MS = 5 * 60_000;

/** Bench and eval scripts of package.json without a smoke run, and smoke runs of no script. */
export function unlistedScripts(root: string): { script: string; problem: string }[] {
  const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts ?? {});
  const measured = scripts.filter((name) => /^(bench|eval):/.test(name));
  const listed = new Set(SMOKE_RUNS.map((r) => r.script));
  return [
    ...measured
      .filter((script) => !listed.has(script))
      .map((script) => ({ script, problem: 'no smoke run in scripts/test/smoke.ts' })),
    ...[...listed]
      .filter((script) => !measured.includes(script))
      .map((script) => ({ script, problem: 'not a script of package.json' })),
  ];
}

/** What is wrong with a run's last line: not JSON, or a figure missing; null when it is fine. */
export function resultProblem(run: SmokeRun, last: string): string | null {
  let result: unknown;
  try {
    result = JSON.parse(last);
  } catch {
    return `the last line is not its JSON result: ${last.slice(0, 200) || '(no output)'}`;
  }
  const missing = run.figures.filter((figure) => {
    const value = figure
      .split('.')
      .reduce<unknown>(
        (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
        result,
      );
    return typeof value !== 'number' || !Number.isFinite(value);
  });
  return missing.length > 0 ? `no figure ${missing.join(', ')} in ${last.slice(0, 300)}` : null;
}

interface Outcome {
  script: string;
  ok: boolean;
  seconds: number;
  /** The JSON result line, or what went wrong. */
  detail: string;
}

/** Runs `npm run <script>` with its tiny knobs; its output goes to `logFile`, each line stamped with the time since the start. */
async function runOne(run: SmokeRun, env: NodeJS.ProcessEnv, root: string, logFile: string): Promise<Outcome> {
  const started = Date.now();
  const out = fs.createWriteStream(logFile);
  const child = spawn('npm', ['run', '--silent', run.script], {
    cwd: root,
    env: { ...env, ...run.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: a run over its limit is stopped with everything it started.
    detached: true,
  });
  let lastLine = '';
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        out.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s] ${line}\n`);
        if (stream === child.stdout && line.trim()) lastLine = line.trim();
      }
    });
  }
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, name);
    } catch {
      // already gone
    }
  };
  let overLimit = false;
  const limit = setTimeout(() => {
    overLimit = true;
    signal('SIGINT');
    setTimeout(() => signal('SIGKILL'), 45_000).unref();
  }, RUN_LIMIT_MS);
  const code = await new Promise<number | null>((resolve) => {
    child.once('close', (exitCode) => resolve(exitCode));
    child.once('error', () => resolve(null));
  });
  clearTimeout(limit);
  await new Promise<void>((resolve) => out.end(resolve));
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const problem = overLimit
    ? `stopped after ${RUN_LIMIT_MS / 1000} s`
    : code !== 0
      ? `exit code ${code}`
      : resultProblem(run, lastLine);
  return { script: run.script, ok: problem === null, seconds, detail: problem ?? lastLine };
}

/**
 * Runs the smoke runs, SMOKE_CONCURRENCY (default 2) at a time in list order, against these
 * services, printing each one's time and result line (and the end of its output when it failed).
 * Two at a time: much of each run is waiting (servers starting, a warm-up, Lighthouse's page load),
 * and every run has its own database, Redis server (under `<dataDir>/<script>`), ports and data
 * directory. Logs: `<logDir>/<script>.log`.
 */
export async function runSmokeTier(options: {
  root: string;
  postgresBaseUrl: string;
  dataDir: string;
  logDir: string;
  log: (line: string) => void;
}): Promise<{ ok: boolean; passed: number; failed: number }> {
  const { root, log } = options;
  fs.mkdirSync(options.logDir, { recursive: true });
  const unlisted: Outcome[] = unlistedScripts(root).map(({ script, problem }) => ({
    script,
    ok: false,
    seconds: 0,
    detail: problem,
  }));
  for (const o of unlisted) log(`smoke: ${o.script}: ${o.detail}`);
  const started = Date.now();
  const outcomes = await mapLimit(SMOKE_RUNS, Number(process.env.SMOKE_CONCURRENCY ?? 2), async (run) => {
    const name = run.script.replace(':', '-');
    const logFile = path.join(options.logDir, `${name}.log`);
    const knobs = Object.entries(run.env).map(([k, v]) => `${k}=${v}`);
    log(`smoke: ${run.script} started (${knobs.join(' ')})`);
    const redis = await startRedis({ dataDir: path.join(options.dataDir, name), persistRedis: false, log: () => {} });
    let outcome: Outcome;
    try {
      outcome = await runOne(
        run,
        { ...process.env, BENCH_POSTGRES: options.postgresBaseUrl, BENCH_REDIS: redis.url },
        root,
        logFile,
      );
    } finally {
      await redis.stop();
    }
    log(`smoke: ${run.script} ${outcome.ok ? 'ok' : 'FAILED'} in ${outcome.seconds} s: ${outcome.detail}`);
    if (!outcome.ok) {
      const tail = fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-30);
      console.log([`---- last lines of ${path.relative(root, logFile)}:`, ...tail, '----'].join('\n'));
    }
    return outcome;
  });
  const all = [...unlisted, ...outcomes];
  console.log('\n[test] smoke run            result  seconds');
  for (const o of all) {
    console.log(`[test] ${o.script.padEnd(20)} ${(o.ok ? 'ok' : 'FAILED').padEnd(7)} ${String(o.seconds).padStart(7)}`);
  }
  console.log(`[test] (${Math.round((Date.now() - started) / 1000)} s in all)`);
  const passed = all.filter((o) => o.ok).length;
  return { ok: passed === all.length, passed, failed: all.length - passed };
}
