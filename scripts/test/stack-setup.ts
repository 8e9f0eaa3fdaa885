// Vitest global setup for the server and worker tiers: real PostgreSQL and Redis. `npm test`
// passes the services it started (PODMATCH_TEST_POSTGRES / PODMATCH_TEST_REDIS); run alone,
// a tier starts its own under .data/test-<tier>. Each tier gets a freshly migrated database.
import path from 'node:path';
import { initOrm, migrate } from '@server/core/db/orm';
import type { TestProject } from 'vitest/node';
import { type LocalStack, recreateDatabase, startLocalStack } from '../lib/local-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

const REDIS_DB: Record<string, number> = { server: 1, worker: 2 };

export default async function setup(project: TestProject) {
  let postgresBase = process.env.PODMATCH_TEST_POSTGRES;
  let redisBase = process.env.PODMATCH_TEST_REDIS;
  let stack: LocalStack | undefined;
  if (!postgresBase || !redisBase) {
    stack = await startLocalStack({
      dataDir: path.resolve(process.env.PODMATCH_TEST_DATA_DIR ?? `.data/test-${project.name}`),
      database: 'postgres',
      persistRedis: false,
      log: () => {},
    });
    postgresBase = stack.postgresBaseUrl;
    redisBase = stack.redisUrl;
  }
  const database = `podmatch_test_${project.name}`;
  const databaseUrl = await recreateDatabase(postgresBase, database);
  const orm = await initOrm(databaseUrl);
  await migrate(orm);
  await orm.close();

  const redisUrl = `${redisBase.replace(/\/\d*$/, '')}/${REDIS_DB[project.name] ?? 3}`;
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    await stack?.stop();
  };
}
