// Runs only the local services (PostgreSQL + Redis) until Ctrl-C, printing their URLs.
// Handy for running one test tier or the server by hand: export the printed URLs first.
import path from 'node:path';
import { startLocalStack } from './lib/local-stack';

const stack = await startLocalStack({
  dataDir: path.resolve(process.env.DATA_DIR ?? '.data'),
  database: 'podmatch',
  persistRedis: true,
  pgPort: process.env.PG_PORT ? Number(process.env.PG_PORT) : undefined,
  redisPort: process.env.REDIS_PORT ? Number(process.env.REDIS_PORT) : undefined,
  log: (line) => console.log(`[stack] ${line}`),
});
console.log(`export DATABASE_URL='${stack.databaseUrl}'`);
console.log(`export REDIS_URL='${stack.redisUrl}'`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stack.stop().then(() => process.exit(0));
  });
}
