// The Bluesky link's routes (docs/bluesky.md): they parse, call bluesky.service.ts and answer, with
// the starting browser's cookie and the redirects of the OAuth dance.
import { api } from '@shared/index';
import { type Request, type Response, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { BLUESKY_CALLBACK_PATH } from '../../core/bluesky/bluesky-config';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { readCookie } from '../../http/cookies';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';
import {
  checkLink,
  claimLink,
  exchangeSignIn,
  finishCallback,
  NONCE_COOKIE,
  startLink,
  startSignIn,
  unavailableMessage,
  unlink,
} from './bluesky.service';

export function blueskyRoutes(deps: AppDeps): Router {
  const router = Router();
  const client = deps.bluesky;

  const withEffects = (req: Request) => ({ ...deps, effects: req.effects });

  // What the person's Bluesky server reads about this app (a web client's id is this URL).
  mount(router, api.blueskyClientMetadata, async () => {
    if (!client) throw notFound(unavailableMessage(deps) ?? 'Bluesky is not set up on this server.');
    return client.oauth.clientMetadata as Record<string, unknown>;
  });
  mount(
    router,
    api.blueskyJwks,
    async () => (client?.oauth.jwks ?? { keys: [] }) as unknown as { keys: Record<string, unknown>[] },
  );

  mount(router, api.blueskyStatus, async ({ params, req }) => checkLink(withEffects(req), req.em, params.userId));

  // The starting browser keeps a nonce the callback checks (a link or sign-in URL sent to someone
  // else's browser completes nothing).
  const keepNonce = (res: Response, nonce: string) =>
    res.cookie(NONCE_COOKIE, nonce, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.config.isProduction,
      path: BLUESKY_CALLBACK_PATH,
      maxAge: 600_000,
    });

  mount(router, api.blueskyLink, async ({ params, body, req, res }) => {
    const { url, nonce } = await startLink(
      withEffects(req),
      params.userId,
      body.handle,
      req.get('origin'),
      body.returnPage,
    );
    keepNonce(res, nonce);
    return { url };
  });

  // Sign in with Bluesky (docs/auth.md): the same dance, for no account yet; back to /login.
  mount(router, api.blueskySignInStart, async ({ body, req, res }) => {
    const { url, nonce } = await startSignIn(withEffects(req), body.handle, req.get('origin'));
    keepNonce(res, nonce);
    return { url };
  });

  mount(router, api.blueskyExchange, async ({ body, req }) => {
    const { user, created } = await exchangeSignIn(withEffects(req), req.em, body.code);
    // Created: its portrait is queued from the outbox.
    if (created) req.effects.relayOutbox();
    const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
    return { token, user: toSelfUser(user) };
  });

  // The person's Bluesky server sends the browser back here (?code&state&iss, or ?error).
  mount(router, api.blueskyCallback, async ({ req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    // The OAuth library checks the parameters as they came (the URL's own query string).
    const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    const nonce = readCookie(req, NONCE_COOKIE);
    if (client) res.clearCookie(NONCE_COOKIE, { path: BLUESKY_CALLBACK_PATH });
    const outcome = await finishCallback(withEffects(req), params, nonce);
    const back = `${outcome.returnTo}/${outcome.page}`;
    if (outcome.kind === 'failed') return { location: `${back}?bluesky_error=${outcome.reason}` };
    if (outcome.page === 'login') return { location: `${back}?bluesky_code=${outcome.code}` };
    return { location: `${back}?bluesky_link=${outcome.code}` };
  });

  mount(router, api.blueskyFinish, async ({ params, body, req }) =>
    claimLink(withEffects(req), req.em, params.userId, body.code),
  );

  mount(router, api.blueskyUnlink, async ({ params, req }) => {
    await unlink(withEffects(req), req.em, params.userId);
    return { ok: true as const };
  });

  return router;
}
