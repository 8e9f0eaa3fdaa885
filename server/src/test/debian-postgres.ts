// A PostgreSQL cluster of Debian's packaged server, for tests that need the client tools of the same
// version (pg_dump / pg_restore: the backup round trip). The embedded cluster of the test stack is a
// newer major version than any pg_dump Debian 12 ships, and pg_dump refuses newer servers.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensurePostgresUser, freePort, postgresArgs, stopChild, waitForOutput } from '../../../scripts/lib/local-stack';
import {
  DEBIAN_POSTGRES_TOOLS,
  DEBIAN_POSTGRES_VERSION,
  ensureDebianPackages,
} from '../../../scripts/lib/system-packages';

const VERSION = DEBIAN_POSTGRES_VERSION;
const BIN = `/usr/lib/postgresql/${VERSION}/bin`;

export interface DebianPostgres {
  version: number;
  /** A new empty database's URL (password included). */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startDebianPostgres(): Promise<DebianPostgres> {
  ensureDebianPackages(DEBIAN_POSTGRES_TOOLS, () => {});
  // PostgreSQL refuses to run as root: as root the cluster belongs to the postgres system user.
  const runAs = process.getuid?.() === 0 ? ensurePostgresUser() : undefined;
  const ids = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-debian-pg-'));
  if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
  const password = randomBytes(12).toString('hex');
  const pwfile = path.join(dir, 'password');
  fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) fs.chownSync(pwfile, runAs.uid, runAs.gid);
  const data = path.join(dir, 'data');
  const init = spawn(
    `${BIN}/initdb`,
    [
      `--pgdata=${data}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${pwfile}`,
      '--locale=C',
      '-E',
      'UTF8',
    ],
    { ...ids, stdio: 'ignore', env: { ...process.env, LC_ALL: 'C' } },
  );
  const initCode = await new Promise<number | null>((resolve) => init.on('exit', resolve));
  if (initCode !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb of PostgreSQL ${VERSION} failed (exit ${initCode})`);
  }
  const port = await freePort();
  const child = spawn(`${BIN}/postgres`, postgresArgs(data, port, { fsync: 'off' }), {
    ...ids,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  // waitForOutput kills the server when it does not come up; its files go too.
  await waitForOutput(child, /ready to accept connections/, `PostgreSQL ${VERSION}`, 30_000).catch((error) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const url = (db: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  return {
    version: VERSION,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`create database ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      await stopChild(child, 'SIGINT', `PostgreSQL ${VERSION}`, () => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
