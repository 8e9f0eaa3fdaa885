import { LIMITS } from '@shared/index';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { AppDeps } from './app-deps';
import { LocalMediaStore, S3MediaStore } from './core/media';
import { accountRoutes } from './features/account/account.routes';
import { artworkRoutes } from './features/artwork/artwork.routes';
import { authRoutes } from './features/auth/auth.routes';
import { blueskyRoutes } from './features/bluesky/bluesky.routes';
import { chatRoutes } from './features/chat/chat.routes';
import { devMailRoutes } from './features/dev-mail/dev-mail.routes';
import { emailAuthRoutes } from './features/email-auth/email-auth.routes';
import { feedRoutes } from './features/feed/feed.routes';
import { healthRoutes } from './features/health/health.routes';
import { identitiesRoutes } from './features/identities/identities.routes';
import { matchesRoutes } from './features/matches/matches.routes';
import { moderationRoutes } from './features/moderation/moderation.routes';
import { notificationsRoutes } from './features/notifications/notifications.routes';
import { passkeysRoutes } from './features/passkeys/passkeys.routes';
import { podcastsRoutes } from './features/podcasts/podcasts.routes';
import { profilesRoutes } from './features/profiles/profiles.routes';
import { spotifyRoutes } from './features/spotify/spotify.routes';
import { usersRoutes } from './features/users/users.routes';
import { videosRoutes } from './features/videos/videos.routes';
import { authenticate } from './http/authenticate';
import { contentSecurityPolicy } from './http/content-security-policy';
import { apiNotFound, errorHandler } from './http/error-handler';
import { notFound } from './http/errors';
import { requestContext, requestLogging } from './http/request-context';
import { assertRoutesInContract } from './http/route';
import { serveClient } from './serve-client';
import { serveMedia } from './serve-media';

/** The HTTP application without listening, so tests can drive it directly. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.trustProxy);
  // Every endpoint takes its own rate limit in mount() (shared/src/api: `rateLimit`).
  app.locals.limits = deps.limits;
  // Before anything that could log or answer: the request's id and log scope.
  app.use(requestLogging(deps.logger, app.get('trust proxy fn'), deps.metrics));
  app.use(helmet({ contentSecurityPolicy: contentSecurityPolicy(deps.config) }));

  app.use('/api', express.json({ limit: LIMITS.jsonBodyMaxBytes }));
  app.use('/api', requestContext(deps.orm, deps));
  app.use('/api', authenticate(deps.sessions));
  app.use(healthRoutes(deps));
  app.use(artworkRoutes(deps));
  app.use(authRoutes(deps));
  app.use(emailAuthRoutes(deps));
  app.use(passkeysRoutes(deps));
  app.use(identitiesRoutes(deps));
  app.use(usersRoutes(deps));
  app.use(videosRoutes(deps));
  app.use(feedRoutes(deps));
  app.use(matchesRoutes(deps));
  app.use(chatRoutes(deps));
  app.use(spotifyRoutes(deps));
  app.use(blueskyRoutes(deps));
  app.use(podcastsRoutes(deps));
  app.use(profilesRoutes(deps));
  app.use(accountRoutes(deps));
  app.use(moderationRoutes(deps));
  app.use(notificationsRoutes(deps));
  // The development mailbox (pages under /dev, its JSON under /api/dev): only while mail goes there.
  if (deps.mail?.devMailbox) app.use('/dev', requestContext(deps.orm, deps));
  app.use(devMailRoutes(deps));
  app.use('/api', apiNotFound);
  // Development pages that are not here (production, or SMTP configured): a 404, not the app's page.
  app.use('/dev', (_req, _res, next) => next(notFound('No such page.')));

  // Media from the directory or the bucket (docs/media.md): valid keys only, cached for a year (names never change content).
  if (deps.media instanceof LocalMediaStore || deps.media instanceof S3MediaStore)
    app.use('/media', serveMedia(deps.media, deps.redis));
  else app.use('/media', (_req, _res, next) => next(notFound('No such file.')));
  serveClient(app, deps.config.clientDistDir);

  app.use(errorHandler(deps.logger, deps.databaseOutage));
  // No route outside the contract: each was mounted from a shared definition (http/route.ts).
  assertRoutesInContract((app as unknown as { router: { stack: [] } }).router.stack);
  return app;
}
