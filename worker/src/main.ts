import { closeOnSignals } from '@server/core/lifecycle';
import { createLogger } from '@server/core/logger';
import { loadWorkerConfig } from './config';
import { startWorker } from './worker';

const config = loadWorkerConfig();
const logger = createLogger('worker', config.logLevel, { format: config.logFormat });
const worker = await startWorker(config, logger);
// Running jobs get time to finish; unfinished ones return to the queue for another worker.
closeOnSignals(() => worker.close(), logger, 30_000);
