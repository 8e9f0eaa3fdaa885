import { LIMITS } from '@shared/index';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppDeps } from './app-deps';
import { artworkRoutes } from './features/artwork/artwork.routes';
import { authRoutes } from './features/auth/auth.routes';
import { chatRoutes } from './features/chat/chat.routes';
import { feedRoutes } from './features/feed/feed.routes';
import { healthRoutes } from './features/health/health.routes';
import { matchesRoutes } from './features/matches/matches.routes';
import { podcastsRoutes } from './features/podcasts/podcasts.routes';
import { profilesRoutes } from './features/profiles/profiles.routes';
import { spotifyRoutes } from './features/spotify/spotify.routes';
import { usersRoutes } from './features/users/users.routes';
import { authenticate } from './http/authenticate';
import { apiNotFound, errorHandler } from './http/error-handler';
import { requestContext } from './http/request-context';
import { serveClient } from './serve-client';

/** The HTTP application without listening, so tests can drive it directly. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'img-src': ["'self'", 'data:', 'blob:', 'https:'],
          'media-src': ["'self'", 'blob:', 'https:'],
          'connect-src': ["'self'", 'ws:', 'wss:'],
          'upgrade-insecure-requests': deps.config.isProduction ? [] : null,
        },
      },
    }),
  );

  app.use('/api', express.json({ limit: LIMITS.jsonBodyMaxBytes }));
  app.use('/api', requestContext(deps.orm));
  app.use('/api', authenticate(deps.sessions));
  app.use(healthRoutes(deps));
  app.use(artworkRoutes());
  app.use(authRoutes(deps));
  app.use(usersRoutes(deps));
  app.use(feedRoutes(deps));
  app.use(matchesRoutes(deps));
  app.use(chatRoutes(deps));
  app.use(spotifyRoutes(deps));
  app.use(podcastsRoutes(deps));
  app.use(profilesRoutes());
  app.use('/api', apiNotFound);

  app.use('/media', express.static(deps.config.mediaDir, { maxAge: '1h', fallthrough: false, dotfiles: 'deny' }));
  serveClient(app, deps.config.clientDistDir);

  app.use(errorHandler(deps.logger));
  return app;
}
