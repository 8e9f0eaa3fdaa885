import { api } from '@shared/index';
import { type Response, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { SPOTIFY_CALLBACK_PATH } from '../../core/spotify/spotify-config';
import { readCookie } from '../../http/cookies';
import { mount } from '../../http/route';
import {
  claimConnect,
  createConnectTicket,
  disconnectSpotify,
  EXCHANGE_PATH,
  finishAuthorization,
  OAUTH_COOKIE,
  OAUTH_TTL_SECONDS,
  type OAuthMode,
  queueSpotifySync,
  redeemConnectTicket,
  redeemLoginCode,
  SIGN_IN_COOKIE,
  type SpotifyErrorCode,
  spotifyStatusOf,
  startAuthorization,
} from './spotify.service';

/** Sign-in failures go to the login screen; connect failures back to the profile. */
function errorTarget(mode: OAuthMode, code: SpotifyErrorCode): string {
  return mode === 'connect' ? `/profile?spotify_error=${code}` : `/login?error=${code}`;
}

export function spotifyRoutes(deps: AppDeps): Router {
  const router = Router();
  const config = deps.config.spotify;
  const cookieOptions = {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.config.isProduction,
    path: SPOTIFY_CALLBACK_PATH,
  };

  const notConfigured = { location: '/login?error=missing_spotify_credentials' };

  /** Spotify's consent page, with a fresh state, PKCE challenge and the starting browser's cookie. */
  const authorize = async (res: Response, mode: OAuthMode, userId?: number) => {
    const { nonce, url } = await startAuthorization(deps, mode, userId);
    res.cookie(OAUTH_COOKIE, nonce, { ...cookieOptions, maxAge: OAUTH_TTL_SECONDS.state * 1000 });
    res.setHeader('Cache-Control', 'no-store');
    return { location: url };
  };

  // Public: "Continue with Spotify" on the login screen (sign in, or create an account).
  mount(router, api.spotifySignIn, async ({ res }) => (config.configured ? authorize(res, 'login') : notConfigured));

  // Connect Spotify to the signed-in user. A navigation carries no bearer token, so the client
  // first asks POST /api/spotify/connect-ticket for a one-time ticket. Without a ticket this is
  // the same as /api/auth/spotify (sign in through Spotify).
  mount(router, api.spotifyConnectStart, async ({ query, res }) => {
    if (!config.configured) return notConfigured;
    if (query.ticket === undefined) return authorize(res, 'login');
    const userId = await redeemConnectTicket(deps, query.ticket);
    if (!userId) return { location: errorTarget('connect', 'spotify_auth_failed') };
    return authorize(res, 'connect', userId);
  });

  // Spotify sends the browser back here with ?code&state (or ?error=access_denied&state).
  mount(router, api.spotifyCallback, async ({ query, req, res }) => {
    res.setHeader('Cache-Control', 'no-store');
    res.clearCookie(OAUTH_COOKIE, cookieOptions);
    if (!config.configured) return notConfigured;
    const outcome = await finishAuthorization(
      { ...deps, effects: req.effects },
      req.em,
      { state: query.state, code: query.code, error: query.error },
      readCookie(req, OAUTH_COOKIE),
    );
    if (outcome.kind === 'failed') return { location: errorTarget(outcome.mode, outcome.error) };
    if (outcome.kind === 'connectPending') {
      return { location: `/profile?spotify_connect=${encodeURIComponent(outcome.code)}` };
    }
    res.cookie(SIGN_IN_COOKIE, outcome.browserSecret, {
      ...cookieOptions,
      path: EXCHANGE_PATH,
      maxAge: OAUTH_TTL_SECONDS.loginCode * 1000,
    });
    return { location: `/login?spotify_code=${encodeURIComponent(outcome.loginCode)}` };
  });

  // Public: the one-time code from the callback -> a session, like dev login's answer; only in the
  // browser the callback answered.
  mount(router, api.spotifyExchange, async ({ body, req, res }) => {
    const browserSecret = readCookie(req, SIGN_IN_COOKIE);
    res.clearCookie(SIGN_IN_COOKIE, { ...cookieOptions, path: EXCHANGE_PATH });
    return redeemLoginCode(deps, req.em, body.code, browserSecret, req.get('user-agent'));
  });

  // Signed in: claims a connect that came back from Spotify, only for the account that started it.
  mount(router, api.spotifyConnectFinish, async ({ body, auth, req }) =>
    claimConnect({ ...deps, effects: req.effects }, req.em, auth.userId, body.code),
  );

  // Signed in, acts on the caller only: a one-time URL that connects Spotify to them.
  mount(router, api.spotifyConnectTicket, async ({ auth }) => {
    const ticket = await createConnectTicket(deps.redis, auth.userId);
    return { url: `/api/spotify/login?ticket=${encodeURIComponent(ticket)}` };
  });

  // Owner only.
  mount(router, api.spotifyStatus, async ({ params, req }) => spotifyStatusOf(config, req.em, params.userId));

  // Owner only: refresh the library from Spotify; progress and the outcome arrive by socket.
  mount(router, api.spotifySync, async ({ params, req }) =>
    queueSpotifySync({ ...deps, effects: req.effects }, req.em, params.userId),
  );

  // Owner only: forget the tokens and the Spotify-sourced entries.
  mount(router, api.spotifyDisconnect, async ({ params, req }) => {
    await disconnectSpotify({ effects: req.effects }, req.em, params.userId);
    return { ok: true as const };
  });

  return router;
}
