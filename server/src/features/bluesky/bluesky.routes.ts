// The Bluesky link's routes (docs/bluesky.md): they parse, call bluesky.service.ts and answer, with
// the starting browser's cookie and the redirects of the OAuth dance.
import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { BLUESKY_CALLBACK_PATH, BLUESKY_JWKS_PATH, BLUESKY_METADATA_PATH } from '../../core/atproto/atproto-config';
import { readCookie } from '../../http/cookies';
import { clientAddress } from '../../http/rate-limits';
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

  // What the person's Bluesky server reads about this app (a web client's id is this URL).
  router.get(BLUESKY_METADATA_PATH, (_req, res) => {
    if (!client) return res.status(404).json({ error: 'not_found', message: unavailableMessage(deps) });
    res.json(client.oauth.clientMetadata);
  });
  router.get(BLUESKY_JWKS_PATH, (_req, res) => {
    res.json(client?.oauth.jwks ?? { keys: [] });
  });

  mount(router, api.blueskyStatus, async ({ params, req }) => checkLink(deps, req.em, params.userId));

  mount(router, api.blueskyLink, async ({ params, body, req, res }) => {
    await deps.limits.take('blueskyLinks', { user: params.userId, ip: clientAddress(req) });
    const { url, nonce } = await startLink(deps, params.userId, body.handle, req.get('origin'));
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
  router.get(BLUESKY_CALLBACK_PATH, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    const nonce = readCookie(req, NONCE_COOKIE);
    if (client) res.clearCookie(NONCE_COOKIE, { path: BLUESKY_CALLBACK_PATH });
    const outcome = await finishCallback(deps, params, nonce);
    if (outcome.kind === 'failed') {
      return res.redirect(302, `${outcome.returnTo}/profile?bluesky_error=${outcome.reason}`);
    }
    res.redirect(302, `${outcome.returnTo}/profile?bluesky_link=${outcome.code}`);
  });

  mount(router, api.blueskyFinish, async ({ params, body, req }) => claimLink(deps, req.em, params.userId, body.code));

  mount(router, api.blueskyUnlink, async ({ params, req }) => {
    await unlink(deps, req.em, params.userId);
    return { ok: true as const };
  });

  return router;
}
