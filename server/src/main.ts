import { loadConfig } from './config';
import { closeOnSignals } from './core/lifecycle';
import { createLogger } from './core/logger';
import { startServer } from './server';

const config = loadConfig();
const logger = createLogger('server', config.logLevel, { format: config.logFormat });
const running = await startServer(config, logger);
logger.info(`listening on ${running.url} (${config.env})`);
// The login screen offers only what works (GET /api/auth/methods); the reason for a missing one is here.
if (!config.spotify.configured) {
  logger.info('Spotify sign-in and import are off: SPOTIFY_CLIENT_ID is not set (docs/spotify.md)');
}
// The drain notice, then up to 10 s for requests in progress and the sockets.
closeOnSignals(() => running.close(), logger, config.drainNoticeMs + 10_000);
