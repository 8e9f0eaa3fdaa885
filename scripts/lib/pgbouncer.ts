// PgBouncer in transaction mode in front of a PostgreSQL cluster (docs/operations.md, "A connection
// pooler"): the Debian package, the way a deployment runs it. The browser tests' stack and
// worker/src/pgbouncer.test.ts run the app through it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensurePostgresUser, freePort, stopChild, waitForOutput } from './local-stack';
import { ensureDebianPackages } from './system-packages';

export const PGBOUNCER_BINARY = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** A connection URL through the pooler for `database` (same user and password as upstream). */
  url(database: string): string;
  port: number;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** Any URL of the upstream cluster (its user, password, host and port are used). */
  upstreamUrl: string;
  /** Server connections per database and user (PgBouncer's default_pool_size). */
  poolSize?: number;
  /** Where the pid of a run is written, so a later run can stop one left behind. */
  pidFile?: string;
  log: (line: string) => void;
}

/** Starts PgBouncer (installing the Debian package when missing and allowed), transaction pooling. */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  ensureDebianPackages([{ binary: PGBOUNCER_BINARY, packages: ['pgbouncer'] }], options.log);
  const upstream = new URL(options.upstreamUrl);
  const user = decodeURIComponent(upstream.username);
  const password = decodeURIComponent(upstream.password);
  const port = await freePort();
  // PgBouncer refuses to run as root: as root it runs as the postgres system user, which must read
  // its configuration (a private directory it owns).
  const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pm-pgbouncer-'));
  const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;
  fs.writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // Clients authenticate as to PostgreSQL; PgBouncer logs in upstream with the same password.
      'auth_type = scram-sha-256',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 20}`,
      'max_client_conn = 2000',
      // A session's settings must not leak to the next transaction's client (transaction mode
      // never runs server_reset_query; the app sets only `set local` / set_config(..., true)).
      'server_reset_query =',
      `admin_users = ${user}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  if (runAs) {
    for (const f of [dir, path.join(dir, 'userlist.txt'), path.join(dir, 'pgbouncer.ini')]) {
      fs.chownSync(f, runAs.uid, runAs.gid);
    }
  }
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, [path.join(dir, 'pgbouncer.ini')], {
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const cleanUp = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (options.pidFile) fs.rmSync(options.pidFile, { force: true });
  };
  try {
    if (options.pidFile && child.pid) {
      fs.mkdirSync(path.dirname(options.pidFile), { recursive: true });
      fs.writeFileSync(options.pidFile, String(child.pid));
    }
    await waitForOutput(child, /process up/, 'PgBouncer', 20_000);
  } catch (error) {
    // Never left running when the start fails.
    child.kill('SIGKILL');
    cleanUp();
    throw error;
  }
  options.log(`PgBouncer (transaction pooling) on 127.0.0.1:${port} in front of ${upstream.host}`);
  return {
    port,
    url: (database) => {
      const through = new URL(options.upstreamUrl);
      through.hostname = '127.0.0.1';
      through.port = String(port);
      through.pathname = `/${database}`;
      return through.toString();
    },
    stop: async () => {
      await stopChild(child, 'SIGINT', 'PgBouncer', options.log);
      cleanUp();
    },
  };
}
