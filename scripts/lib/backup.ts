// Backups of a running instance (docs/operations.md, "Backups"): the database with pg_dump (custom
// format) and every file of the media store, into one directory with a manifest; and the way back
// with pg_restore into an empty database and the files into a media store. Used by
// scripts/backup.ts and scripts/restore.ts (npm run backup / npm run restore).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMediaKey, type MediaStore, mediaContentType } from '@server/core/media';
import pg from 'pg';
import { mapLimit } from './map-limit';

export const BACKUP_FORMAT = 1;
const DUMP_FILE = 'database.dump';
const MEDIA_FOLDER = 'media';
const MANIFEST_FILE = 'manifest.json';
/** Files copied at once from or to the media store. */
const MEDIA_CONCURRENCY = 8;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  createdAt: string;
  database: { file: string; serverVersion: string; pgDumpVersion: string; bytes: number };
  media: { folder: string; files: number; bytes: number };
}

/** A PostgreSQL tool (pg_dump, pg_restore) of at least `major`: PG_BIN, Debian's versioned ones, PATH. */
export function postgresTool(name: 'pg_dump' | 'pg_restore', major: number): { path: string; version: string } {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(path.join(process.env.PG_BIN, name));
  const debian = '/usr/lib/postgresql';
  if (fs.existsSync(debian)) {
    const versions = fs
      .readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => path.join(debian, v, 'bin', name)));
  }
  candidates.push(name);
  const found: string[] = [];
  for (const candidate of candidates) {
    const result = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    const version = /(\d+)(\.\d+)?/.exec(result.stdout ?? '');
    if (result.status !== 0 || !version) continue;
    found.push(`${candidate} (${version[0]})`);
    if (Number(version[1]) >= major) return { path: candidate, version: version[0] };
  }
  throw new Error(
    `${name} ${major} or newer is needed for this PostgreSQL ${major} server (found: ${found.join(', ') || 'none'}). ` +
      `Install postgresql-client-${major} (https://www.postgresql.org/download/) or set PG_BIN to the directory holding it.`,
  );
}

/** The server's version (`17.2`) and major version. */
async function serverVersion(databaseUrl: string): Promise<{ version: string; major: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ num: string; version: string }>(
      `select current_setting('server_version_num') as num, current_setting('server_version') as version`,
    );
    const row = rows[0] as { num: string; version: string };
    return { version: row.version.split(' ')[0] as string, major: Math.floor(Number(row.num) / 10000) };
  } finally {
    await client.end();
  }
}

/** Runs a PostgreSQL tool with the password in its environment (never in its arguments, which `ps` shows). */
function runTool(tool: string, args: string[], databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return new Promise((resolve, reject) => {
    const child = spawn(tool, [...args, `--dbname=${url.toString()}`], {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(tool)} failed (exit ${code}):\n${stderr.trim()}`)),
    );
  });
}

/** Every media key stored now. */
async function mediaKeys(media: MediaStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of media.list()) keys.push(key);
  return keys;
}

/**
 * Writes a backup into `out` (a new or empty directory). Media is copied before and after the dump:
 * names never change content, so every file the dumped rows name is in the backup unless it was made
 * during the dump and deleted right after; files deleted meanwhile are harmless extras.
 */
export async function backup(options: {
  databaseUrl: string;
  media: MediaStore;
  out: string;
  log: (line: string) => void;
}): Promise<BackupManifest> {
  const { out, media, log } = options;
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0) throw new Error(`${out} is not empty`);
  fs.mkdirSync(path.join(out, MEDIA_FOLDER), { recursive: true, mode: 0o700 });
  const copied = new Set<string>();
  let mediaBytes = 0;
  const copyNew = async () => {
    const keys = (await mediaKeys(media)).filter((key) => !copied.has(key));
    await mapLimit(keys, MEDIA_CONCURRENCY, async (key) => {
      const file = path.join(out, MEDIA_FOLDER, key);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      try {
        await media.getFile(key, file);
      } catch (error) {
        // Deleted between the listing and the copy: not part of any state worth restoring.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      copied.add(key);
      mediaBytes += fs.statSync(file).size;
    });
    return keys.length;
  };

  log(`media: ${await copyNew()} files copied`);
  const server = await serverVersion(options.databaseUrl);
  const pgDump = postgresTool('pg_dump', server.major);
  const dumpFile = path.join(out, DUMP_FILE);
  await runTool(
    pgDump.path,
    ['--format=custom', '--no-owner', '--no-privileges', `--file=${dumpFile}`],
    options.databaseUrl,
  );
  const dumpBytes = fs.statSync(dumpFile).size;
  log(`database: PostgreSQL ${server.version} dumped with pg_dump ${pgDump.version} (${dumpBytes} bytes)`);
  log(`media: ${await copyNew()} more files copied after the dump`);

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    createdAt: new Date().toISOString(),
    database: { file: DUMP_FILE, serverVersion: server.version, pgDumpVersion: pgDump.version, bytes: dumpBytes },
    media: { folder: MEDIA_FOLDER, files: copied.size, bytes: mediaBytes },
  };
  fs.writeFileSync(path.join(out, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

/** Reads and checks a backup's manifest. */
export function readManifest(from: string): BackupManifest {
  const file = path.join(from, MANIFEST_FILE);
  if (!fs.existsSync(file)) throw new Error(`${from} is not a backup (no ${MANIFEST_FILE})`);
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as BackupManifest;
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`Unknown backup format ${manifest.format} in ${file}`);
  return manifest;
}

/**
 * Restores the backup in `from` into an empty database (unless `clean`: then its tables are replaced)
 * and puts every file into `media`. The database is restored in one transaction: all or nothing.
 */
export async function restore(options: {
  databaseUrl: string;
  media: MediaStore;
  from: string;
  clean?: boolean;
  log: (line: string) => void;
}): Promise<{ tables: number; files: number }> {
  const { from, media, log } = options;
  const manifest = readManifest(from);
  const existing = await countTables(options.databaseUrl);
  if (existing > 0 && !options.clean) {
    throw new Error(
      `The database already has ${existing} tables. Restore into an empty database, or pass --clean to replace them.`,
    );
  }
  const server = await serverVersion(options.databaseUrl);
  const dumpMajor = Number(manifest.database.pgDumpVersion.split('.')[0]);
  const pgRestore = postgresTool('pg_restore', Math.max(server.major, dumpMajor));
  await runTool(
    pgRestore.path,
    [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      ...(options.clean ? ['--clean', '--if-exists'] : []),
      path.join(from, manifest.database.file),
    ],
    options.databaseUrl,
  );
  log(`database: restored into PostgreSQL ${server.version} with pg_restore ${pgRestore.version}`);

  const folder = path.join(from, manifest.media.folder);
  const files = fs.existsSync(folder)
    ? fs
        .readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
        .filter((key) => {
          if (!isMediaKey(key)) log(`media: skipped ${key} (not a media file name)`);
          return isMediaKey(key);
        })
    : [];
  // putFile moves its file into the store: each goes through a copy, and the backup stays whole.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-restore-'));
  try {
    await mapLimit(files, MEDIA_CONCURRENCY, async (key) => {
      const copy = path.join(scratch, randomBytes(8).toString('hex'));
      fs.copyFileSync(path.join(folder, key), copy);
      await media.putFile(key, copy, mediaContentType(key));
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  log(`media: ${files.length} files restored`);
  return { tables: await countTables(options.databaseUrl), files: files.length };
}

async function countTables(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_tables where schemaname = 'public'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}
