// One-shot: migrate, then seed demo data into an empty database. `docker compose` runs this as
// its `migrate` service; `npm start` does the same step itself before starting the servers.
import { prepareDatabase } from '@server/core/db/prepare-database';
import { loadRedisSettings } from '@server/core/redis/redis-settings';

const { DATABASE_URL, REDIS_URL, SEED_DEMO_DATA } = process.env;
if (!DATABASE_URL || !REDIS_URL) {
  console.error('Set DATABASE_URL and REDIS_URL.');
  process.exit(2);
}
await prepareDatabase({
  databaseUrl: DATABASE_URL,
  redisUrl: loadRedisSettings(process.env),
  seed: SEED_DEMO_DATA !== 'false',
  log: (line) => console.log(`[migrate] ${line}`),
});
