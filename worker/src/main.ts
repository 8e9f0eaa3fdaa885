import { createLogger } from '../../server/src/logger';
import { loadWorkerConfig } from './config';
import { startWorker } from './worker';

const config = loadWorkerConfig();
const logger = createLogger('worker', config.logLevel);
const worker = await startWorker(config, logger);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    logger.info(`${signal}: finishing running jobs`);
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    worker.close().then(
      () => process.exit(0),
      (error) => {
        logger.error('shutdown failed', error);
        process.exit(1);
      },
    );
  });
}
