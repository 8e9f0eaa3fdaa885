// Vitest global setup for the service tiers (server, worker, faults): real PostgreSQL and Redis.
// `npm test` passes the cluster it started (PODMATCH_TEST_POSTGRES); run alone, a tier starts its own
// under .data/test-<tier> (or PODMATCH_TEST_DATA_DIR).
//
// Test files run side by side, each on services of its own (scripts/test/file-setup.ts): a database
// cloned from this tier's migrated template, and a Redis database on the redis-server of its vitest
// worker slot. One redis-server per slot, not one for the tier: Redis pub/sub channels (Socket.IO's
// adapter, the worker's emitter) are shared by all databases of a server, so files running at the same
// time would hear each other's events. The files of one slot run one after another.
import os from 'node:os';
import path from 'node:path';
import { initOrm, migrate } from '@server/core/db/orm';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { bundleApp } from '../build';
import {
  type LocalStack,
  recreateDatabase,
  startLocalStack,
  startRedis,
  TEST_POSTGRES_SETTINGS,
} from '../lib/local-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster's URL without a database name (ends in `/`). */
    postgresBase: string;
    /** The migrated database every test file's own database is copied from. */
    templateDatabase: string;
    /** Prefix of the names of the test files' own databases in this run. */
    fileDatabasePrefix: string;
    /** One redis-server per vitest worker slot (VITEST_POOL_ID 1..n). */
    redisSlots: string[];
    /** The server's and worker's bundles (`server.mjs`, `worker.mjs`) that tests start as processes. */
    appBundleDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = path.resolve(process.env.PODMATCH_TEST_DATA_DIR ?? `.data/test-${project.name}`);
  let postgresBase = process.env.PODMATCH_TEST_POSTGRES;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = () => Promise.all(stops.splice(0).map((stop) => stop()));
  try {
    if (!postgresBase) {
      const stack = await sharedStack(dataDir);
      stops.push(stack.release);
      postgresBase = stack.postgresBaseUrl;
    }

    // Tests that start the server or worker as a process run them as production does: bundled, so
    // each starts in about a second instead of compiling its sources as it goes (tsx).
    const appBundleDir = path.join(dataDir, `app-bundle-${project.name}`);
    const bundled = bundleApp(appBundleDir, ['server', 'worker', 'score-people.thread']);
    bundled.catch(() => undefined); // awaited below

    const templateDatabase = `podmatch_test_${project.name}`;
    const fileDatabasePrefix = `podmatch_test_${project.name}_f`;
    // Files' databases a killed run left behind.
    await dropDatabasesStartingWith(postgresBase, fileDatabasePrefix);
    const orm = await initOrm(await recreateDatabase(postgresBase, templateDatabase));
    try {
      await migrate(orm);
    } finally {
      await orm.close();
    }

    const slots = Math.max(1, project.config.maxWorkers || project.globalConfig.maxWorkers || os.cpus().length);
    const redisSlots = await Promise.all(
      Array.from({ length: slots }, async (_, i) => {
        const redis = await startRedis({
          dataDir: path.join(dataDir, `redis-slots/${project.name}-${i + 1}`),
          persistRedis: false,
          log: () => {},
        });
        stops.push(redis.stop);
        return redis.url;
      }),
    );

    project.provide('postgresBase', postgresBase);
    project.provide('templateDatabase', templateDatabase);
    project.provide('fileDatabasePrefix', fileDatabasePrefix);
    project.provide('redisSlots', redisSlots);
    await bundled;
    project.provide('appBundleDir', appBundleDir);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return async () => {
    await dropDatabasesStartingWith(postgresBase, `podmatch_test_${project.name}_f`).catch(() => undefined);
    await stopAll();
  };
}

/**
 * The local stack under `dataDir`, started once for the projects of one vitest call that use that
 * directory (their global setups run in this one process, each with modules of its own): a second
 * PostgreSQL on the same files would stop the first.
 */
function sharedStack(dataDir: string): Promise<{ postgresBaseUrl: string; release: () => Promise<void> }> {
  const scope = globalThis as { podmatchTestStacks?: Map<string, SharedStack> };
  scope.podmatchTestStacks ??= new Map();
  const registry = scope.podmatchTestStacks;
  let entry = registry.get(dataDir);
  if (!entry) {
    entry = {
      users: 0,
      stack: startLocalStack({
        dataDir,
        database: 'postgres',
        persistRedis: false,
        postgresSettings: TEST_POSTGRES_SETTINGS,
        log: () => {},
      }),
    };
    registry.set(dataDir, entry);
  }
  const shared = entry;
  shared.users++;
  return shared.stack.then(
    (stack: LocalStack) => ({
      postgresBaseUrl: stack.postgresBaseUrl,
      release: async () => {
        if (--shared.users > 0) return;
        registry.delete(dataDir);
        await stack.stop();
      },
    }),
    (error: unknown) => {
      registry.delete(dataDir);
      throw error;
    },
  );
}

interface SharedStack {
  users: number;
  stack: Promise<LocalStack>;
}

async function dropDatabasesStartingWith(postgresBase: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${postgresBase}postgres` });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'select datname from pg_database where starts_with(datname, $1)',
      [prefix],
    );
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
