import { loadConfig } from './config';
import { closeOnSignals } from './core/lifecycle';
import { createLogger } from './core/logger';
import { startServer } from './server';

const config = loadConfig();
const logger = createLogger('server', config.logLevel, { format: config.logFormat });
const running = await startServer(config, logger);
logger.info(`listening on ${running.url} (${config.env})`);
closeOnSignals(() => running.close(), logger, 10_000);
