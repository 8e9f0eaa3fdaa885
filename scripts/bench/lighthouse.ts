// Lighthouse (mobile form factor, its default simulated throttling) against the built app served
// by the real server, in Debian's Chromium: /login, and the feed of a signed-in person. Its own
// stack under .data/lighthouse (seeded like `npm start`) and its own build there. Prints the four
// category scores and the main metrics per page, then one JSON line; exit code 1 when a page's
// performance is below LIGHTHOUSE_MIN_PERFORMANCE (default 95). Usage: npm run bench:lighthouse
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '@server/config';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { createLogger } from '@server/core/logger';
import { startServer } from '@server/server';
import { STORAGE_KEYS } from '@shared/constants';
import lighthouse from 'lighthouse';
import puppeteer, { type Page } from 'puppeteer-core';
import { recreateDatabase, startLocalStack } from '../lib/local-stack';

const root = path.resolve('.');
const dataDir = path.join(root, '.data/lighthouse');
const distDir = path.join(dataDir, 'dist');
const minPerformance = Number(process.env.LIGHTHOUSE_MIN_PERFORMANCE ?? 95);
const log = (line: string) => console.log(`[lighthouse] ${line}`);

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
}

async function audit(page: Page, name: string, url: string): Promise<PageResult> {
  // Storage is kept: the feed run signs in through localStorage first.
  const result = await lighthouse(
    url,
    { output: 'json', logLevel: 'error', disableStorageReset: true },
    undefined,
    page,
  );
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { categories, audits } = result.lhr;
  const score = (key: string) => Math.round((categories[key]?.score ?? 0) * 100);
  const value = (key: string) => Number(audits[key]?.numericValue ?? Number.NaN);
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
  };
}

log('building the client into .data/lighthouse/dist');
const build = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    'client/vite.config.ts',
    '--outDir',
    distDir,
    '--emptyOutDir',
    '--logLevel',
    'warn',
  ],
  { cwd: root, stdio: 'inherit' },
);
if (build.status !== 0) throw new Error('Building the client failed');

const stack = await startLocalStack({ dataDir, database: 'postgres', persistRedis: false, log });
const results: PageResult[] = [];
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
    CLIENT_DIST_DIR: distDir,
    LOG_LEVEL: 'warn',
  });
  const server = await startServer(config, createLogger('server', config.logLevel));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    results.push(await audit(page, '/login', `${server.url}/login`));

    // A person with podcasts, signed in as the app does it (token and id in localStorage).
    const login = await fetch(`${server.url}/api/auth/dev-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: `lighthouse_${Date.now().toString(36)}` }),
    });
    const { token, user } = (await login.json()) as { token: string; user: { id: number } };
    const search = await fetch(`${server.url}/api/podcasts/search?q=the&limit=12`, {
      headers: { authorization: `Bearer ${token}` },
    });
    for (const show of (await search.json()) as { id: number }[]) {
      await fetch(`${server.url}/api/users/${user.id}/podcasts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ podcastId: show.id }),
      });
    }
    const feedPage = await browser.newPage();
    await feedPage.goto(`${server.url}/login`, { waitUntil: 'load' });
    await feedPage.evaluate(
      (keys, session) => {
        // Runs in the page (the scripts' TypeScript has no DOM types).
        const storage = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } })
          .localStorage;
        storage.setItem(keys.token, session.token);
        storage.setItem(keys.userId, String(session.userId));
      },
      STORAGE_KEYS,
      { token, userId: user.id },
    );
    results.push(await audit(feedPage, '/ (feed)', `${server.url}/`));
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
const failed = results.filter((r) => r.performance < minPerformance);
for (const r of failed) console.log(`FAIL ${r.page}: performance ${r.performance} < ${minPerformance}`);
console.log(JSON.stringify({ pages: results }));
process.exit(failed.length > 0 ? 1 : 0);
