import { api, rooms, SPOTIFY_CONNECT_TEXTS, SPOTIFY_SIGN_IN_TEXTS } from '@shared/index';
import { type Response, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { encryptSecret } from '../../core/crypto/secret-box';
import { UserSchema } from '../../core/db/entities';
import { stageJob } from '../../core/jobs/outbox';
import { toSelfUser } from '../../core/presenters/user.presenter';
import {
  authorizeUrl,
  createPkcePair,
  exchangeCode,
  SpotifyApi,
  type SpotifyTokens,
} from '../../core/spotify/spotify-client';
import { SPOTIFY_CALLBACK_PATH } from '../../core/spotify/spotify-config';
import { hasTokens, spotifyOwner, storeTokens } from '../../core/spotify/spotify-tokens';
import { readCookie } from '../../http/cookies';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors';
import { mount } from '../../http/route';
import {
  createConnectTicket,
  createLoginCode,
  deleteSpotifyEntries,
  disconnectSpotify,
  EXCHANGE_PATH,
  findOrCreateSpotifyUser,
  nonceMatches,
  OAUTH_COOKIE,
  OAUTH_TTL_SECONDS,
  type OAuthMode,
  randomSecret,
  SIGN_IN_COOKIE,
  savePendingConnect,
  saveState,
  sha256,
  spotifyStatus,
  takeConnectTicket,
  takeLoginCode,
  takePendingConnect,
  takeState,
} from './spotify.service';

/** The SPEC section 8 values (plus spotify_account_in_use for connect). */
type SpotifyErrorCode =
  | 'missing_spotify_credentials'
  | 'spotify_no_code'
  | 'spotify_profile_error'
  | 'spotify_auth_failed'
  | 'spotify_account_in_use';

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

  /** Sends the browser to Spotify's consent page with a fresh state, PKCE challenge and cookie. */
  const startAuthorization = async (res: Response, mode: OAuthMode, userId?: number) => {
    const state = randomSecret();
    const nonce = randomSecret();
    const pkce = createPkcePair();
    await saveState(deps.redis, state, { nonceHash: sha256(nonce), codeVerifier: pkce.verifier, mode, userId });
    res.cookie(OAUTH_COOKIE, nonce, { ...cookieOptions, maxAge: OAUTH_TTL_SECONDS.state * 1000 });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, authorizeUrl(config, { state, codeChallenge: pkce.challenge }));
  };

  // Public: "Continue with Spotify" on the login screen (sign in, or create an account).
  router.get('/api/auth/spotify', async (_req, res) => {
    if (!config.configured) return res.redirect(302, '/login?error=missing_spotify_credentials');
    await startAuthorization(res, 'login');
  });

  // Connect Spotify to the signed-in user. A navigation carries no bearer token, so the client
  // first asks POST /api/spotify/connect-ticket for a one-time ticket. Without a ticket this is
  // the same as /api/auth/spotify (sign in through Spotify).
  router.get('/api/spotify/login', async (req, res) => {
    if (!config.configured) return res.redirect(302, '/login?error=missing_spotify_credentials');
    const ticket = req.query.ticket;
    if (ticket === undefined) return startAuthorization(res, 'login');
    const userId = typeof ticket === 'string' && ticket ? await takeConnectTicket(deps.redis, ticket) : null;
    if (!userId) {
      deps.logger.warn('spotify connect refused: unknown, expired or used ticket');
      return res.redirect(302, errorTarget('connect', 'spotify_auth_failed'));
    }
    await startAuthorization(res, 'connect', userId);
  });

  // Spotify sends the browser back here with ?code&state (or ?error=access_denied&state).
  router.get(SPOTIFY_CALLBACK_PATH, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.clearCookie(OAUTH_COOKIE, cookieOptions);
    if (!config.configured) return res.redirect(302, '/login?error=missing_spotify_credentials');
    const { state, code, error } = req.query;
    const record = typeof state === 'string' && state ? await takeState(deps.redis, state) : null;
    // Unknown, expired, reused state, or a state started in another browser: refuse.
    if (!record || !nonceMatches(record, readCookie(req, OAUTH_COOKIE))) {
      deps.logger.warn(
        `spotify callback refused: ${record ? 'state cookie missing or not matching' : 'unknown, expired or used state'}`,
      );
      return res.redirect(302, errorTarget(record?.mode ?? 'login', 'spotify_auth_failed'));
    }
    const fail = (value: SpotifyErrorCode) => res.redirect(302, errorTarget(record.mode, value));
    if (error !== undefined) return fail('spotify_auth_failed');
    if (typeof code !== 'string' || !code) return fail('spotify_no_code');

    let tokens: SpotifyTokens;
    try {
      tokens = await exchangeCode(config, code, record.codeVerifier);
    } catch (e) {
      deps.logger.warn(`spotify code exchange failed: ${(e as Error).message}`);
      return fail('spotify_auth_failed');
    }
    let profile: Awaited<ReturnType<SpotifyApi['me']>>;
    try {
      const fixed = { accessToken: async () => tokens.accessToken, refresh: async () => tokens.accessToken };
      profile = await new SpotifyApi(config, fixed, { maxRateLimitRetries: 1, maxRetryAfterMs: 5000 }).me();
    } catch (e) {
      deps.logger.warn(`spotify profile read failed: ${(e as Error).message}`);
      return fail('spotify_profile_error');
    }

    const em = req.em;
    if (record.mode === 'connect') {
      // Nothing is linked here: this browser may not be the starter's (a connect link sent to
      // someone else). The starter's account claims the result with an authenticated request.
      if (!record.userId) return fail('spotify_auth_failed');
      const owner = spotifyOwner(record.userId);
      const code = await savePendingConnect(deps.redis, {
        userId: record.userId,
        spotifyId: profile.id,
        accessToken: encryptSecret(tokens.accessToken, config.tokenKey, owner),
        refreshToken: encryptSecret(tokens.refreshToken, config.tokenKey, owner),
        expiresAt: tokens.expiresAt.toISOString(),
      });
      return res.redirect(302, `/profile?spotify_connect=${encodeURIComponent(code)}`);
    }

    const { user, created } = await findOrCreateSpotifyUser(em, profile);
    // The tokens and the jobs that use them commit together (the job outbox).
    await em.transactional(async (tx) => {
      const managed = await tx.findOneOrFail(UserSchema, user.id);
      storeTokens(managed, tokens, config.tokenKey);
      if (created) await stageJob(tx, 'avatarGenerate', { userId: user.id });
      await stageJob(tx, 'podcastsSync', { source: 'spotify', userId: user.id });
    });
    await deps.outbox.relay();
    // The SPA needs a bearer token; a one-time code keeps it out of the URL and history, and the
    // cookie binds the code to this browser (a code sent to someone else signs nobody in).
    const browserSecret = randomSecret();
    const loginCode = await createLoginCode(deps.redis, user.id, browserSecret);
    res.cookie(SIGN_IN_COOKIE, browserSecret, {
      ...cookieOptions,
      path: EXCHANGE_PATH,
      maxAge: OAUTH_TTL_SECONDS.loginCode * 1000,
    });
    return res.redirect(302, `/login?spotify_code=${encodeURIComponent(loginCode)}`);
  });

  // Public: the one-time code from the callback -> a session, like dev login's answer; only in the
  // browser the callback answered.
  mount(router, api.spotifyExchange, async ({ body, req, res }) => {
    const taken = await takeLoginCode(deps.redis, body.code, readCookie(req, SIGN_IN_COOKIE));
    res.clearCookie(SIGN_IN_COOKIE, { ...cookieOptions, path: EXCHANGE_PATH });
    if (taken === 'other-browser') {
      deps.logger.warn('spotify sign-in code refused: presented by another browser');
      throw badRequest(SPOTIFY_SIGN_IN_TEXTS.otherBrowser);
    }
    const user = taken === 'unknown' ? null : await req.em.findOne(UserSchema, taken.userId);
    if (!user) throw badRequest(SPOTIFY_SIGN_IN_TEXTS.expired);
    const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
    return { token, user: toSelfUser(user) };
  });

  // Signed in: claims a connect that came back from Spotify, only for the account that started it.
  mount(router, api.spotifyConnectFinish, async ({ body, auth, req }) => {
    const pending = await takePendingConnect(deps.redis, body.code);
    if (!pending) throw badRequest(SPOTIFY_CONNECT_TEXTS.expired);
    if (pending.userId !== auth.userId) {
      deps.logger.warn(`spotify connect refused: started by user ${pending.userId}, claimed by ${auth.userId}`);
      throw forbidden(SPOTIFY_CONNECT_TEXTS.otherAccount);
    }
    // The link and the first sync commit together (the job outbox).
    const user = await req.em.transactional(async (tx) => {
      const linked = await tx.findOne(UserSchema, auth.userId);
      if (!linked) throw notFound('User not found.');
      const holder = await tx.findOne(UserSchema, { spotifyId: pending.spotifyId });
      if (holder && holder.id !== linked.id) throw conflict(SPOTIFY_CONNECT_TEXTS.inUse);
      // Another Spotify account than before: its entries are not this account's library.
      if (linked.spotifyId && linked.spotifyId !== pending.spotifyId) await deleteSpotifyEntries(tx, linked.id);
      linked.spotifyId = pending.spotifyId;
      // Encrypted for this user at the callback.
      linked.spotifyAccessToken = pending.accessToken;
      linked.spotifyRefreshToken = pending.refreshToken;
      linked.spotifyTokenExpiry = new Date(pending.expiresAt);
      await stageJob(tx, 'podcastsSync', { source: 'spotify', userId: linked.id });
      return linked;
    });
    await deps.outbox.relay();
    deps.emitter.to(rooms.user(user.id)).emit('user:updated', toSelfUser(user));
    return spotifyStatus(config, user);
  });

  // Signed in, acts on the caller only: a one-time URL that connects Spotify to them.
  mount(router, api.spotifyConnectTicket, async ({ auth }) => {
    const ticket = await createConnectTicket(deps.redis, auth.userId);
    return { url: `/api/spotify/login?ticket=${encodeURIComponent(ticket)}` };
  });

  // Owner only.
  mount(router, api.spotifyStatus, async ({ params, req }) => {
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    return spotifyStatus(config, user);
  });

  // Owner only: refresh the library from Spotify; progress and the outcome arrive by socket.
  mount(router, api.spotifySync, async ({ params, req }) => {
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    if (!config.configured) throw conflict('Spotify is not configured on this server.');
    if (!hasTokens(user)) throw conflict('Spotify is not connected. Connect Spotify first.');
    // Through the outbox: with Redis away the refresh is queued later instead of failing.
    const jobId = await stageJob(req.em, 'podcastsSync', { source: 'spotify', userId: user.id });
    await deps.outbox.relay();
    return { jobId };
  });

  // Owner only: forget the tokens and the Spotify-sourced entries.
  mount(router, api.spotifyDisconnect, async ({ params, req }) => {
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    // The recompute of who matches this person commits with the removed entries (the job outbox).
    await disconnectSpotify(deps, req.em, user);
    await deps.outbox.relay();
    return { ok: true as const };
  });

  return router;
}
