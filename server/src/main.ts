import { loadConfig } from './config';
import { createLogger } from './logger';
import { startServer } from './server';

const config = loadConfig();
const logger = createLogger('server', config.logLevel);
const running = await startServer(config, logger);
logger.info(`listening on ${running.url} (${config.env})`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    logger.info(`${signal}: closing`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      (error) => {
        logger.error('shutdown failed', error);
        process.exit(1);
      },
    );
  });
}
