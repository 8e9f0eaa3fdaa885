// `npm start`: local services (unless DATABASE_URL / REDIS_URL are set), migrations and demo data,
// the client build, then the server and the worker. Ctrl-C or SIGTERM stops everything in order.
import fs from 'node:fs';
import path from 'node:path';
import { exposedDevLoginWarning, loadListenSettings } from '@server/config';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { buildClientIfStale } from './lib/client-build';
import { type LoadBalancer, startLoadBalancer } from './lib/load-balancer';
import { localKey, localVapidKeys } from './lib/local-keys';
import { type LocalStack, startLocalStack } from './lib/local-stack';
import { type AppProcess, reapStaleAppProcesses, startAppProcess, waitForHealthy } from './lib/processes';
import { ensureDebianPackages, VIDEO_TOOLS } from './lib/system-packages';

const root = process.cwd();
const log = (line: string) => console.log(`[launcher] ${line}`);
if (fs.existsSync(path.join(root, '.env'))) process.loadEnvFile(path.join(root, '.env'));

const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
const runDir = path.join(dataDir, 'run');
const port = Number(process.env.PORT ?? 5000);
/** Local multi-instance mode (docs/operations.md): N servers behind HAProxy (deploy/haproxy.cfg) on PORT, M workers. */
const serverInstances = instanceCount('SERVER_INSTANCES');
const workerInstances = instanceCount('WORKER_INSTANCES');
let stack: LocalStack | undefined;
let proxy: LoadBalancer | undefined;
const children: AppProcess[] = [];
let stopping = false;

/** How this machine reaches a server listening on `host`: any wildcard address via loopback. */
function localAddress(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

function instanceCount(name: string): number {
  const text = process.env[name] ?? '1';
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 16) {
    console.error(`[launcher] ${name} must be a whole number from 1 to 16, not "${text}"`);
    process.exit(1);
  }
  return count;
}

async function stopAll(code: number): Promise<never> {
  if (stopping) return new Promise(() => {}) as never;
  stopping = true;
  log('Stopping...');
  // Proxy, servers and workers first (they finish requests and jobs), the data services last.
  await proxy?.close();
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
    // For `npm run admin` (scripts/admin.ts) while this runs; readable by this user only.
    fs.mkdirSync(runDir, { recursive: true });
    fs.writeFileSync(path.join(runDir, 'database-url'), databaseUrl, { mode: 0o600 });
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
    // Without SMTP_URL, sign-in codes land here and at /dev/mail (docs/auth.md).
    MAIL_DIR: process.env.MAIL_DIR ?? path.join(dataDir, 'mail'),
    TOKEN_ENCRYPTION_KEY: localKey({ dataDir, log }, 'TOKEN_ENCRYPTION_KEY'),
    IMAGE_PROXY_KEY: localKey({ dataDir, log }, 'IMAGE_PROXY_KEY'),
    ...localVapidKeys({ dataDir, log }),
  };
  // Where the way in (the server, or HAProxy before several) listens: this machine only
  // outside production unless HOST says otherwise (server/src/config.ts, defaultHost).
  const listen = loadListenSettings(env);
  // METRICS_PORT (docs/operations.md, "Metrics") is the first of the processes' ports: the servers
  // take it and the next ones, then the workers.
  const metricsBase = Number(process.env.METRICS_PORT) || 0;
  const metricsPort = (index: number) => (metricsBase > 0 ? { METRICS_PORT: String(metricsBase + index) } : {});
  if (serverInstances === 1) {
    children.push(startAppProcess('server', { ...env, ...metricsPort(0) }, runDir));
  } else {
    // Each server on its own port on 127.0.0.1; the proxy on PORT (on HOST, like a single server)
    // is the only way in, and the servers believe the X-Forwarded-For it adds (rate limits count
    // the browser's address).
    for (let i = 1; i <= serverInstances; i++) {
      const serverEnv = {
        ...env,
        ...metricsPort(i - 1),
        PORT: String(port + i),
        HOST: '127.0.0.1',
        TRUST_PROXY: 'loopback',
      };
      children.push(startAppProcess('server', serverEnv, runDir, `server-${i}`));
    }
  }
  for (let i = 1; i <= workerInstances; i++) {
    const workerEnv = { ...env, ...metricsPort(serverInstances + i - 1) };
    children.push(startAppProcess('worker', workerEnv, runDir, workerInstances === 1 ? 'worker' : `worker-${i}`));
  }
  for (const child of children) {
    child.child.once('exit', (code) => {
      if (stopping) return;
      log(`${child.name} exited unexpectedly (code ${code}); stopping everything`);
      void stopAll(1);
    });
  }
  const servers = children.filter((c) => c.name.startsWith('server'));
  if (serverInstances === 1) {
    await waitForHealthy(`http://${localAddress(listen.host)}:${port}`, servers[0]!.child);
  } else {
    await Promise.all(servers.map((s, i) => waitForHealthy(`http://127.0.0.1:${port + i + 1}`, s.child)));
    const targets = servers.map((_, i) => port + i + 1);
    proxy = await startLoadBalancer({
      port,
      host: listen.host,
      targets,
      pidFile: path.join(runDir, 'haproxy.pid'),
      log,
    });
    const exposed = exposedDevLoginWarning(listen.host, listen.allowDevLogin);
    if (exposed) log(`WARNING: ${exposed}`);
    log(`${serverInstances} servers (ports ${targets.join(', ')}) behind HAProxy, ${workerInstances} worker(s)`);
  }
  const shown = localAddress(listen.host) === '127.0.0.1' ? 'localhost' : localAddress(listen.host);
  log(`PodMatch is running at http://${shown}:${port}  (Ctrl-C to stop)`);
  if (!env.SMTP_URL && env.NODE_ENV !== 'production') {
    log(`Emails (sign-in codes) are not sent: read them at http://${shown}:${port}/dev/mail`);
  }
} catch (error) {
  console.error(`[launcher] ${(error as Error).message}`);
  await stopAll(1);
}
