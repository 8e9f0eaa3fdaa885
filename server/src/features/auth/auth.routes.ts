import net from 'node:net';
import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { SessionSchema } from '../../core/db/entities';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { mount } from '../../http/route';
import { devLoginAccount } from './dev-login.service';

export function authRoutes(deps: AppDeps): Router {
  const router = Router();

  // Why a method is off is in the server's log at start and in docs/auth.md, not on the login screen.
  mount(router, api.signInMethods, async ({ req }) => ({
    // Without PUBLIC_URL the relying party is the host the browser asked for, and WebAuthn takes no
    // IP address for one: a page opened at 127.0.0.1 offers no passkeys (localhost does).
    passkey: deps.config.passkeys !== null && (deps.config.passkeys.rpId !== undefined || net.isIP(req.hostname) === 0),
    email: deps.config.mail.smtpUrl !== undefined || deps.config.mail.devMailDir !== undefined,
    bluesky: deps.bluesky !== null,
    spotify: deps.config.spotify.configured,
    devLogin: deps.config.allowDevLogin,
  }));

  // Development login: any username, no password, only for accounts it opened itself. Mounted only
  // when the process is explicitly in development mode (config.ts); otherwise a 404.
  if (deps.config.allowDevLogin) {
    mount(router, api.devLogin, async ({ body, req }) => {
      const { user, created } = await devLoginAccount(req.em, body.username);
      // Created: its portrait is queued from the outbox (staged with the account, auth.service).
      if (created) req.effects.relayOutbox();
      const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
      return { token, user: toSelfUser(user) };
    });
  }

  // Anyone holding a token may end that login (every token rotated from it).
  mount(router, api.logout, async ({ auth, req }) => {
    const session = await req.em.findOneOrFail(SessionSchema, auth.sessionId);
    const ended = await deps.sessions.revokeFamily(req.em, session);
    req.effects.endSessions(ended, 'logout');
    return { ok: true as const };
  });

  mount(router, api.logoutEverywhere, async ({ auth, req }) => {
    const ended = await deps.sessions.revokeAllOf(req.em, auth.userId);
    req.effects.endSessions(ended, 'logout');
    return { ok: true as const };
  });

  // Spotify sign-in and connect: features/spotify/spotify.routes.ts.

  return router;
}
