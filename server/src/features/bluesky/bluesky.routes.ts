// The Bluesky link's routes (docs/bluesky.md): they parse, call bluesky.service.ts and answer, with
// the starting browser's cookie and the redirects of the OAuth dance.
import { api } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { BLUESKY_CALLBACK_PATH } from '../../core/bluesky/bluesky-config';
import { readCookie } from '../../http/cookies';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';
import {
  checkLink,
  claimLink,
  finishCallback,
  NONCE_COOKIE,
  startLink,
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

  mount(router, api.blueskyLink, async ({ params, body, req, res }) => {
    const { url, nonce } = await startLink(
      withEffects(req),
      params.userId,
      body.handle,
      req.get('origin'),
      body.returnPage,
    );
    res.cookie(NONCE_COOKIE, nonce, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.config.isProduction,
      path: BLUESKY_CALLBACK_PATH,
      maxAge: 600_000,
    });
    return { url };
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
