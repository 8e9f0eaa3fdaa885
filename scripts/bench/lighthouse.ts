// Lighthouse (mobile form factor, its default simulated throttling) against the built app served
// by the real server, in Debian's Chromium: /login, and the feed of a signed-in person. Its own
// stack under .data/lighthouse (seeded like `npm start`) and its own build there (rebuilt when a
// source changed). Prints the four category scores and the main metrics per page, then one JSON
// line; exit code 1 when a page's performance is below LIGHTHOUSE_MIN_PERFORMANCE (default 95).
// Usage: npm run bench:lighthouse   (LIGHTHOUSE_PAGES=login,feed: the pages to audit, default both;
// BENCH_POSTGRES / BENCH_REDIS: services to use instead of its own, scripts/lib/bench-services.ts)
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@server/config';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { createLogger } from '@server/core/logger';
import { startServer } from '@server/server';
import { STORAGE_KEYS } from '@shared/constants';
import lighthouse, { type RunnerResult } from 'lighthouse';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { benchServices } from '../lib/bench-services';
import { buildClientIfStale } from '../lib/client-build';
import { recreateDatabase } from '../lib/local-stack';

const root = path.resolve('.');
const dataDir = path.join(root, '.data/lighthouse');
const minPerformance = Number(process.env.LIGHTHOUSE_MIN_PERFORMANCE ?? 95);
const PAGES = new Set((process.env.LIGHTHOUSE_PAGES ?? 'login,feed').split(',').map((p) => p.trim()));
if (PAGES.size === 0 || [...PAGES].some((p) => p !== 'login' && p !== 'feed')) {
  throw new Error(`LIGHTHOUSE_PAGES: "login", "feed" or both, not ${process.env.LIGHTHOUSE_PAGES}`);
}
const log = (line: string) => console.log(`[lighthouse] ${line}`);
/** A card of the feed: the audited feed load must end showing one. */
const FEED_CARD = '[data-testid="feed-card"]';

interface PageResult {
  page: string;
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  transferKiB: number;
  /** Where the main thread went (Lighthouse's bootup-time, mainthread-work-breakdown, long tasks). */
  details: string[];
}

interface DetailItem {
  url?: string;
  total?: number;
  scripting?: number;
  scriptParseCompile?: number;
  groupLabel?: string;
  duration?: number;
  startTime?: number;
  transferSize?: number;
}

/** The main thread's work on a page, most expensive first: what to look at when TBT is high. */
function mainThreadDetails(audits: Record<string, { details?: unknown }>, origin: string): string[] {
  const items = (key: string) => (audits[key]?.details as { items?: DetailItem[] } | undefined)?.items ?? [];
  const short = (url = '') => url.replace(origin, '') || '(page)';
  const ms = (n = 0) => `${Math.round(n)} ms`;
  const lines = [
    `  main thread: ${items('mainthread-work-breakdown')
      .slice(0, 5)
      .map((i) => `${i.groupLabel} ${ms(i.duration)}`)
      .join(', ')}`,
  ];
  for (const i of items('bootup-time').slice(0, 5))
    lines.push(
      `  script ${short(i.url)}: ${ms(i.total)} (${ms(i.scripting)} run, ${ms(i.scriptParseCompile)} compile)`,
    );
  const tasks = items('long-tasks');
  lines.push(
    `  long tasks (${tasks.length}): ${tasks
      .slice(0, 6)
      .map((i) => `${short(i.url)} ${ms(i.duration)} at ${ms(i.startTime)}`)
      .join('; ')}`,
  );
  lines.push(
    `  requests: ${items('network-requests')
      .map((i) => `${short(i.url)} ${((i.transferSize ?? 0) / 1024).toFixed(1)}K`)
      .join(', ')}`,
  );
  return lines;
}

/**
 * One Lighthouse run of `url`. A run whose trace could not be read (`runtimeError`, e.g. NO_FCP when
 * the machine is busy) measured nothing: it is said and run again, up to three times.
 */
async function lighthouseRun(page: Page, url: string, attempt = 1): Promise<NonNullable<RunnerResult>> {
  // Storage is kept: the feed run signs in through localStorage first.
  const result = await lighthouse(
    url,
    { output: 'json', logLevel: 'error', disableStorageReset: true },
    undefined,
    page,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const error = result.lhr.runtimeError;
  if (!error) return result;
  log(`${url}: Lighthouse could not measure (${error.code}: ${error.message}), attempt ${attempt} of 3`);
  if (attempt >= 3) throw new Error(`Lighthouse could not measure ${url}: ${error.code}`);
  return lighthouseRun(page, url, attempt + 1);
}

async function audit(page: Page, name: string, url: string): Promise<PageResult> {
  // Lighthouse simulates a slow phone from the task durations it observes here: other work on this
  // machine lengthens them, so the load is printed with every page.
  const load = os.loadavg()[0]?.toFixed(2);
  const result = await lighthouseRun(page, url);
  const { categories, audits } = result.lhr;
  const score = (key: string) => Math.round((categories[key]?.score ?? 0) * 100);
  const value = (key: string) => Number(audits[key]?.numericValue ?? Number.NaN);
  // A redirect (e.g. to /login when the session was not seen) would measure another page.
  if (result.lhr.finalDisplayedUrl !== url)
    throw new Error(`${name}: Lighthouse ended on ${result.lhr.finalDisplayedUrl}`);
  log(`${name}: load average ${load} before the run, ${os.loadavg()[0]?.toFixed(2)} after (${os.cpus().length} cores)`);
  return {
    page: name,
    performance: score('performance'),
    accessibility: score('accessibility'),
    bestPractices: score('best-practices'),
    seo: score('seo'),
    fcpMs: Math.round(value('first-contentful-paint')),
    lcpMs: Math.round(value('largest-contentful-paint')),
    tbtMs: Math.round(value('total-blocking-time')),
    cls: Math.round(value('cumulative-layout-shift') * 1000) / 1000,
    transferKiB: Math.round(value('total-byte-weight') / 1024),
    details: mainThreadDetails(audits, new URL(url).origin),
  };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/**
 * LIGHTHOUSE_PROFILE=1: loads `url` again with the CPU slowed 4x (as Lighthouse simulates) under
 * V8's sampling profiler and prints the functions with the most self time: what a high TBT is made of.
 */
async function profileLoad(page: Page, url: string): Promise<void> {
  const cdp = await page.createCDPSession();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.goto(url, { waitUntil: 'networkidle0' });
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') return;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\//, '')}:${frame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const byFile = new Map<string, number>();
  for (const [key, value] of self) {
    const file = key.split(' ').at(-1)?.replace(/:\d+$/, '') || '(native)';
    byFile.set(file, (byFile.get(file) ?? 0) + value);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${v.toFixed(0).padStart(6)} ms  ${k}`);
  console.log(['profile of a feed load (CPU 4x slower), self time by file:', ...top(byFile, 12)].join('\n'));
  console.log(['by function:', ...top(self, 25)].join('\n'));
  if (process.env.LIGHTHOUSE_PROFILE_TIMELINE === '1') {
    let t = 0;
    const buckets = new Map<number, Map<string, number>>();
    profile.samples.forEach((id, i) => {
      t += (profile.timeDeltas[i] ?? 0) / 1000;
      const frame = nodes.get(id)?.callFrame;
      if (!frame || frame.functionName === '(idle)' || frame.functionName === '(program)') return;
      const file = frame.url.replace(/^.*\//, '') || frame.functionName;
      const bucket = buckets.get(Math.floor(t / 50)) ?? new Map<string, number>();
      bucket.set(file, (bucket.get(file) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
      buckets.set(Math.floor(t / 50), bucket);
    });
    for (const [b, files] of [...buckets].sort((x, y) => x[0] - y[0]))
      console.log(
        `  ${b * 50} ms: ${[...files]
          .sort((x, y) => y[1] - x[1])
          .slice(0, 4)
          .map(([f, v]) => `${f} ${v.toFixed(0)}`)
          .join(', ')}`,
      );
  }
}

const results: PageResult[] = [];

/** The feed of a person with podcasts, as a returning visitor opens it. */
async function auditFeed(browser: Browser, baseUrl: string): Promise<void> {
  // A person with podcasts, signed in as the app does it (token and id in localStorage).
  const login = await fetch(`${baseUrl}/api/auth/dev-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `lighthouse_${Date.now().toString(36)}` }),
  });
  const { token, user } = (await login.json()) as { token: string; user: { id: number } };
  // A returning visitor: past the setup wizard (a new account would be sent to /setup).
  await fetch(`${baseUrl}/api/users/${user.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ setupComplete: true }),
  });
  const search = await fetch(`${baseUrl}/api/podcasts/search?q=the&limit=12`, {
    headers: { authorization: `Bearer ${token}` },
  });
  for (const show of (await search.json()) as { id: number }[]) {
    await fetch(`${baseUrl}/api/users/${user.id}/podcasts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ podcastId: show.id }),
    });
  }
  const feedPage = await browser.newPage();
  await feedPage.goto(`${baseUrl}/login`, { waitUntil: 'load' });
  await feedPage.evaluate(
    (keys, session) => {
      // Runs in the page (the scripts' TypeScript has no DOM types).
      const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage;
      storage.setItem(keys.token, session.token);
      storage.setItem(keys.userId, String(session.userId));
    },
    STORAGE_KEYS,
    { token, userId: user.id },
  );
  // A returning visitor: the person has had the feed open before (its chunks are in the cache),
  // as when someone signed in opens the app again. The audited load must show the feed itself.
  await feedPage.goto(`${baseUrl}/`, { waitUntil: 'load' });
  await feedPage.waitForSelector(FEED_CARD, { timeout: 30_000 });
  results.push(await audit(feedPage, '/ (feed)', `${baseUrl}/`));
  if (!(await feedPage.waitForSelector(FEED_CARD, { timeout: 30_000 }).catch(() => null)))
    throw new Error('The audited feed load showed no feed card');
  if (process.env.LIGHTHOUSE_PROFILE === '1') await profileLoad(feedPage, `${baseUrl}/`);
}

buildClientIfStale(root, log);

const stack = await benchServices({ dataDir, database: 'postgres', persistRedis: false, log });
try {
  const databaseUrl = await recreateDatabase(stack.postgresBaseUrl, 'podmatch_lighthouse');
  await prepareDatabase({ databaseUrl, redisUrl: stack.redisUrl, seed: true, log });
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    REDIS_URL: stack.redisUrl,
    MEDIA_DIR: path.join(dataDir, 'media'),
    CLIENT_DIST_DIR: path.join(root, 'client/dist'),
    LOG_LEVEL: 'warn',
    // Signs image proxy URLs (docs/image-proxy.md): a fresh key per run.
    IMAGE_PROXY_KEY: randomBytes(32).toString('base64'),
  });
  const server = await startServer(config, createLogger('server', config.logLevel));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    if (PAGES.has('login')) {
      // A first visit: nothing cached, nobody signed in.
      const loginPage = await browser.newPage();
      results.push(await audit(loginPage, '/login', `${server.url}/login`));
      // Closed, so that its app (which follows other tabs' logins through storage events) cannot
      // touch the session the feed run stores.
      await loginPage.close();
    }
    if (PAGES.has('feed')) await auditFeed(browser, server.url);
  } finally {
    await browser.close();
    await server.close();
  }
} finally {
  await stack.stop();
}

console.log('');
console.log('page           perf  a11y  best   seo |    FCP ms    LCP ms  TBT ms    CLS | transfer KiB');
for (const r of results) {
  console.log(
    `${r.page.padEnd(14)} ${String(r.performance).padStart(4)}  ${String(r.accessibility).padStart(4)}  ` +
      `${String(r.bestPractices).padStart(4)}  ${String(r.seo).padStart(4)} | ${String(r.fcpMs).padStart(9)} ` +
      `${String(r.lcpMs).padStart(9)} ${String(r.tbtMs).padStart(7)} ${r.cls.toFixed(3).padStart(6)} | ` +
      `${String(r.transferKiB).padStart(12)}`,
  );
}
for (const r of results) console.log([`${r.page}:`, ...r.details].join('\n'));
const failed = results.filter((r) => r.performance < minPerformance);
for (const r of failed) console.log(`FAIL ${r.page}: performance ${r.performance} < ${minPerformance}`);
console.log(JSON.stringify({ pages: results.map(({ details: _, ...r }) => r) }));
process.exit(failed.length > 0 ? 1 : 0);
