// The services of the running test file: its own database (a copy of the tier's migrated template)
// and its own Redis database, made before the file runs (scripts/test/file-setup.ts,
// scripts/test/stack-setup.ts). Test files run side by side and never see each other's rows, jobs or
// events; within a file, tests share them.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { cloneDatabase, dropDatabases } from '../../../scripts/lib/local-stack';

interface FileStack {
  databaseUrl: string;
  redisUrl: string;
}

let current: FileStack | undefined;

function stack(): FileStack {
  if (!current) throw new Error('no test stack: run this file through a vitest service project (vitest.config.ts)');
  return current;
}

/** The URL of this test file's own database (migrated). */
export const testDatabaseUrl = (): string => stack().databaseUrl;

/** The URL of this test file's own Redis database. */
export const testRedisUrl = (): string => stack().redisUrl;

/** The test cluster's URL without a database name (ends in `/`), to make other databases on it. */
export const testPostgresBase = (): string => inject('postgresBase');

/** A new migrated database named `name` (a copy of the tier's template); answers its URL. */
export const cloneMigratedDatabase = (name: string): Promise<string> =>
  cloneDatabase(inject('postgresBase'), name, inject('templateDatabase'));

// Redis databases of a slot's server, used in turn; the files of one slot run one after another.
const REDIS_DATABASES = 16;

/** Makes this file's database and Redis database; answers the closer. For scripts/test/file-setup.ts. */
export async function openFileStack(): Promise<() => Promise<void>> {
  const postgresBase = inject('postgresBase');
  const slots = inject('redisSlots');
  const slot = Number(process.env.VITEST_POOL_ID ?? '1');
  const redisServer = slots[slot - 1];
  if (!redisServer) throw new Error(`no Redis for vitest worker slot ${slot} (${slots.length} started)`);

  const database = `${inject('fileDatabasePrefix')}${randomBytes(5).toString('hex')}`;
  const [databaseUrl, redisUrl] = await Promise.all([
    cloneMigratedDatabase(database),
    (async () => {
      // A fresh database index for each file, emptied first: nothing queued by an earlier file of this
      // slot reaches this one. Index 0 holds the counter.
      const admin = new Redis(redisServer, { lazyConnect: true });
      try {
        const n = await admin.incr('podmatch:test:files');
        const index = 1 + ((n - 1) % (REDIS_DATABASES - 1));
        await admin.select(index);
        await admin.flushdb();
        return `${redisServer}/${index}`;
      } finally {
        admin.disconnect();
      }
    })(),
  ]);
  current = { databaseUrl, redisUrl };
  return async () => {
    current = undefined;
    await dropDatabases(postgresBase, [database]);
  };
}
