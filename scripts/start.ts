// `npm start`: local services (unless DATABASE_URL / REDIS_URL are set), migrations and demo data,
// the client build, then the server and the worker. Ctrl-C or SIGTERM stops everything in order.
import fs from 'node:fs';
import path from 'node:path';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { buildClientIfStale } from './lib/client-build';
import { type LocalStack, startLocalStack } from './lib/local-stack';
import { type AppProcess, reapStaleAppProcesses, startAppProcess, waitForHealthy } from './lib/processes';
import { ensureDebianPackages, VIDEO_TOOLS } from './lib/system-packages';

const root = process.cwd();
const log = (line: string) => console.log(`[launcher] ${line}`);
if (fs.existsSync(path.join(root, '.env'))) process.loadEnvFile(path.join(root, '.env'));

const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
const runDir = path.join(dataDir, 'run');
const port = Number(process.env.PORT ?? 5000);
let stack: LocalStack | undefined;
const children: AppProcess[] = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (stopping) return new Promise(() => {}) as never;
  stopping = true;
  log('Stopping...');
  // Server and worker first (they finish requests and jobs), the data services last.
  await Promise.all(children.map((c) => c.stop()));
  await stack?.stop();
  log('Stopped.');
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stopAll(0));
// If whatever started us dies without a signal reaching us, stop rather than leave orphans.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void stopAll(0);
}, 500).unref();

try {
  await reapStaleAppProcesses(runDir);
  ensureDebianPackages(VIDEO_TOOLS, log);
  let databaseUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    stack = await startLocalStack({
      dataDir,
      database: 'podmatch',
      persistRedis: true,
      pgPort: process.env.PG_PORT ? Number(process.env.PG_PORT) : undefined,
      redisPort: process.env.REDIS_PORT ? Number(process.env.REDIS_PORT) : undefined,
      log,
    });
    databaseUrl ??= stack.databaseUrl;
    redisUrl ??= stack.redisUrl;
  } else {
    log('Using DATABASE_URL and REDIS_URL from the environment');
  }

  await prepareDatabase({ databaseUrl, redisUrl, seed: process.env.SEED_DEMO_DATA !== 'false', log });
  buildClientIfStale(root, log);
  if (stopping) await new Promise(() => {});

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    PORT: String(port),
    MEDIA_DIR: process.env.MEDIA_DIR ?? path.join(dataDir, 'media'),
  };
  const server = startAppProcess('server', env, runDir);
  const worker = startAppProcess('worker', env, runDir);
  children.push(server, worker);
  for (const child of children) {
    child.child.once('exit', (code) => {
      if (stopping) return;
      log(`${child.name} exited unexpectedly (code ${code}); stopping everything`);
      void stopAll(1);
    });
  }
  await waitForHealthy(`http://127.0.0.1:${port}`, server.child);
  log(`PodMatch is running at http://localhost:${port}  (Ctrl-C to stop)`);
} catch (error) {
  console.error(`[launcher] ${(error as Error).message}`);
  await stopAll(1);
}
