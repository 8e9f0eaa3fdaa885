// Runs only the local services (PostgreSQL + Redis) until Ctrl-C, printing their URLs and the image
// proxy's key (the one `npm start` uses). Handy for running one test tier or the server by hand:
// export the printed lines first.
import path from 'node:path';
import { localKey } from './lib/local-keys';
import { startLocalStack } from './lib/local-stack';

const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
const stack = await startLocalStack({
  dataDir,
  database: 'podmatch',
  persistRedis: true,
  pgPort: process.env.PG_PORT ? Number(process.env.PG_PORT) : undefined,
  redisPort: process.env.REDIS_PORT ? Number(process.env.REDIS_PORT) : undefined,
  log: (line) => console.log(`[stack] ${line}`),
});
console.log(`export DATABASE_URL='${stack.databaseUrl}'`);
console.log(`export REDIS_URL='${stack.redisUrl}'`);
const imageProxyKey = localKey({ dataDir, log: (line) => console.log(`[stack] ${line}`) }, 'IMAGE_PROXY_KEY');
if (imageProxyKey) console.log(`export IMAGE_PROXY_KEY='${imageProxyKey}'`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stack.stop().then(() => process.exit(0));
  });
}
