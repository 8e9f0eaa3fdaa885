import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type LoginResponse, SPOTIFY_CONNECT_TEXTS, SPOTIFY_SIGN_IN_TEXTS, type SpotifyStatus } from '@shared/index';
import type { Redis } from 'ioredis';
import type { AppDeps } from '../../app-deps';
import { encryptSecret } from '../../core/crypto/secret-box';
import { type User, UserIdentitySchema, UserPodcastSchema, UserSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import { toSelfUser } from '../../core/presenters/user.presenter';
import type { Effects } from '../../core/realtime/effects';
import {
  authorizeUrl,
  createPkcePair,
  exchangeCode,
  SpotifyApi,
  type SpotifyProfile,
  type SpotifyTokens,
} from '../../core/spotify/spotify-client';
import type { SpotifyConfig } from '../../core/spotify/spotify-config';
import {
  clearTokens,
  hasTokens,
  spotifyIdentityOf,
  spotifyOwner,
  storeTokens,
} from '../../core/spotify/spotify-tokens';
import { badRequest, conflict, forbidden, notFound } from '../../http/errors';
import { createUser, freeUsername } from '../users/user.service';

// The short-lived secrets of the OAuth dance live in Redis under a hash of their value, each
// used once: the `state` record (10 min), the connect ticket (5 min), the finished connect waiting
// for its account to claim it (5 min) and the sign-in code (1 min).

export type OAuthMode = 'login' | 'connect';

export interface OAuthStateRecord {
  /** SHA-256 of the nonce in the browser's HttpOnly cookie: binds `state` to that browser. */
  nonceHash: string;
  codeVerifier: string;
  mode: OAuthMode;
  userId?: number;
}

export const OAUTH_TTL_SECONDS = { state: 600, ticket: 300, pendingConnect: 300, loginCode: 60 } as const;
export const OAUTH_COOKIE = 'podmatch_spotify_oauth';
/** Binds a sign-in code to the browser the callback answered (HttpOnly, sent only to the exchange). */
export const SIGN_IN_COOKIE = 'podmatch_spotify_signin';
export const EXCHANGE_PATH = '/api/auth/spotify/exchange';

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
export const randomSecret = () => randomBytes(32).toString('base64url');

const keys = {
  state: (state: string) => `spotify:oauth:state:${sha256(state)}`,
  ticket: (ticket: string) => `spotify:connect-ticket:${sha256(ticket)}`,
  loginCode: (code: string) => `spotify:login-code:${sha256(code)}`,
  pendingConnect: (code: string) => `spotify:connect-pending:${sha256(code)}`,
};

export async function saveState(redis: Redis, state: string, record: OAuthStateRecord): Promise<void> {
  await redis.set(keys.state(state), JSON.stringify(record), 'EX', OAUTH_TTL_SECONDS.state);
}

/** Reads and deletes the record of this `state` (single use); null if unknown or expired. */
export async function takeState(redis: Redis, state: string): Promise<OAuthStateRecord | null> {
  const raw = await redis.getdel(keys.state(state));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as OAuthStateRecord;
  } catch {
    return null;
  }
}

export function nonceMatches(record: OAuthStateRecord, cookieNonce: string | undefined): boolean {
  if (!cookieNonce) return false;
  const a = Buffer.from(sha256(cookieNonce));
  const b = Buffer.from(record.nonceHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function putUserId(redis: Redis, key: string, userId: number, ttl: number): Promise<void> {
  await redis.set(key, String(userId), 'EX', ttl);
}

async function takeUserId(redis: Redis, key: string): Promise<number | null> {
  const raw = await redis.getdel(key);
  const id = Number(raw);
  return raw && Number.isInteger(id) && id > 0 ? id : null;
}

export async function createConnectTicket(redis: Redis, userId: number): Promise<string> {
  const ticket = randomSecret();
  await putUserId(redis, keys.ticket(ticket), userId, OAUTH_TTL_SECONDS.ticket);
  return ticket;
}
export const takeConnectTicket = (redis: Redis, ticket: string) => takeUserId(redis, keys.ticket(ticket));

/** Equal SHA-256 hex digests, compared in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A sign-in code for `userId`, redeemable only with the browser secret whose hash is stored with it. */
export async function createLoginCode(redis: Redis, userId: number, browserSecret: string): Promise<string> {
  const code = randomSecret();
  const record = JSON.stringify({ userId, browserHash: sha256(browserSecret) });
  await redis.set(keys.loginCode(code), record, 'EX', OAUTH_TTL_SECONDS.loginCode);
  return code;
}

/**
 * Spends the code (whoever presents it: a guessed or stolen code is gone after one try) and answers
 * its user only when `browserSecret` is the one the callback gave the browser that signed in.
 */
export async function takeLoginCode(
  redis: Redis,
  code: string,
  browserSecret: string | undefined,
): Promise<{ userId: number } | 'unknown' | 'other-browser'> {
  const raw = await redis.getdel(keys.loginCode(code));
  if (!raw) return 'unknown';
  let record: { userId?: unknown; browserHash?: unknown };
  try {
    record = JSON.parse(raw);
  } catch {
    return 'unknown';
  }
  if (typeof record.userId !== 'number' || typeof record.browserHash !== 'string') return 'unknown';
  if (!browserSecret || !sameHash(sha256(browserSecret), record.browserHash)) return 'other-browser';
  return { userId: record.userId };
}

/**
 * A connect that came back from Spotify, waiting for the account that started it to claim it with an
 * authenticated request: the callback itself links nothing, so a connect link opened in someone
 * else's browser cannot attach their Spotify to the starter's account. Tokens are already encrypted
 * for `userId`.
 */
export interface PendingConnect {
  userId: number;
  spotifyId: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: string;
}

export async function savePendingConnect(redis: Redis, pending: PendingConnect): Promise<string> {
  const code = randomSecret();
  await redis.set(keys.pendingConnect(code), JSON.stringify(pending), 'EX', OAUTH_TTL_SECONDS.pendingConnect);
  return code;
}

/** Reads and deletes a pending connect (single use, whoever claims it); null if unknown or expired. */
export async function takePendingConnect(redis: Redis, code: string): Promise<PendingConnect | null> {
  const raw = await redis.getdel(keys.pendingConnect(code));
  if (!raw) return null;
  try {
    return JSON.parse(raw) as PendingConnect;
  } catch {
    return null;
  }
}

/**
 * The account linked to this Spotify user, created on first sign-in together with its Spotify
 * identity (one transaction): safe when two sign-ins race, the loser finds the winner's account.
 * A username taken meanwhile by someone else (a dev login) is a clash too: the next try picks another.
 */
export async function findOrCreateSpotifyUser(
  em: EntityManager,
  profile: SpotifyProfile,
): Promise<{ user: User; created: boolean }> {
  const linkedTo = async () =>
    (await em.findOne(UserIdentitySchema, { provider: 'spotify', subject: profile.id }))?.user.id;
  const displayName = profile.display_name?.trim() || profile.id;
  for (let attempt = 1; ; attempt++) {
    const existing = await linkedTo();
    if (existing) return { user: await em.findOneOrFail(UserSchema, existing), created: false };
    try {
      const created = await em.fork().transactional(async (tx) => {
        const user = await createUser(tx, {
          username: await freeUsername(tx, `spotify_${profile.id}`),
          displayName,
          signUpMethod: 'spotify',
        });
        tx.create(UserIdentitySchema, { user, provider: 'spotify', subject: profile.id });
        return user;
      });
      return { user: await em.findOneOrFail(UserSchema, created.id), created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
}

/** Removes the entries a Spotify sync added; entries from OPML or added by hand stay. */
export async function deleteSpotifyEntries(em: EntityManager, userId: number): Promise<number> {
  return em.nativeDelete(UserPodcastSchema, { userId, source: 'spotify' });
}

/** The account of `userId`, with its linked identities; 404 when there is none. */
async function userOf(em: EntityManager, userId: number): Promise<User> {
  const user = await em.findOne(UserSchema, userId);
  if (!user) throw notFound('User not found.');
  return user;
}

/**
 * Disconnect: forget the tokens and the Spotify-sourced library entries. The Spotify identity stays
 * as the account's sign-in link, so "Continue with Spotify" still finds this account.
 */
export async function disconnectSpotify(deps: { effects: Effects }, em: EntityManager, userId: number): Promise<void> {
  await userOf(em, userId);
  // The recompute of who matches this person commits with the removed entries (the job outbox).
  const user = await em.transactional(async (tx) => {
    const managed = await tx.findOneOrFail(UserSchema, userId);
    const identity = spotifyIdentityOf(managed);
    if (identity) {
      clearTokens(identity);
      identity.syncedAt = null;
    }
    await deleteSpotifyEntries(tx, userId);
    // Who matches this person changes with the entries gone.
    await stageJob(tx, 'matchesRecompute', { scope: 'user', userId });
    return managed;
  });
  deps.effects.relayOutbox();
  deps.effects.userUpdated(user);
}

export function spotifyStatus(config: SpotifyConfig, user: User): SpotifyStatus {
  const identity = spotifyIdentityOf(user);
  return {
    available: config.configured,
    connected: hasTokens(user),
    spotifyId: identity?.subject ?? null,
    lastSpotifySync: identity?.syncedAt?.toISOString() ?? null,
  };
}

/** The Spotify card of `userId` (owner only). */
export async function spotifyStatusOf(config: SpotifyConfig, em: EntityManager, userId: number) {
  return spotifyStatus(config, await userOf(em, userId));
}

/** Queues a refresh of the library from Spotify; progress and the outcome arrive by socket. */
export async function queueSpotifySync(
  deps: Pick<AppDeps, 'config'> & { effects: Effects },
  em: EntityManager,
  userId: number,
): Promise<{ jobId: string }> {
  const user = await userOf(em, userId);
  if (!deps.config.spotify.configured) throw conflict('Spotify is not configured on this server.');
  if (!hasTokens(user)) throw conflict('Spotify is not connected. Connect Spotify first.');
  // Through the outbox: with Redis away the refresh is queued later instead of failing.
  const jobId = await stageJob(em, 'podcastsSync', { source: 'spotify', userId: user.id });
  deps.effects.relayOutbox();
  return { jobId };
}

// --- The OAuth flows (docs/spotify.md): the routes carry cookies and redirects, these decide. ---

/** What the OAuth flows use; `effects` is the request's unit of work (core/realtime/effects.ts). */
type SpotifyDeps = Pick<AppDeps, 'config' | 'redis' | 'logger' | 'sessions'> & { effects: Effects };

/** The SPEC section 8 values (plus spotify_account_in_use for connect). */
export type SpotifyErrorCode =
  | 'missing_spotify_credentials'
  | 'spotify_no_code'
  | 'spotify_profile_error'
  | 'spotify_auth_failed'
  | 'spotify_account_in_use';

/**
 * A fresh authorization: the state (with the PKCE verifier and the hash of the browser's nonce)
 * saved for the callback, the nonce for the browser's cookie, and Spotify's consent URL.
 */
export async function startAuthorization(
  deps: Pick<AppDeps, 'config' | 'redis'>,
  mode: OAuthMode,
  userId?: number,
): Promise<{ nonce: string; url: string }> {
  const state = randomSecret();
  const nonce = randomSecret();
  const pkce = createPkcePair();
  await saveState(deps.redis, state, { nonceHash: sha256(nonce), codeVerifier: pkce.verifier, mode, userId });
  return { nonce, url: authorizeUrl(deps.config.spotify, { state, codeChallenge: pkce.challenge }) };
}

/** The user a connect ticket was made for (spent), or null with the refusal logged. */
export async function redeemConnectTicket(deps: Pick<AppDeps, 'redis' | 'logger'>, ticket: unknown) {
  const userId = typeof ticket === 'string' && ticket ? await takeConnectTicket(deps.redis, ticket) : null;
  if (!userId) deps.logger.warn('spotify connect refused: unknown, expired or used ticket');
  return userId;
}

/** What Spotify's callback comes to: where the browser goes next. */
export type CallbackOutcome =
  | { kind: 'failed'; mode: OAuthMode; error: SpotifyErrorCode }
  /** A connect waiting for its account to claim it with this code (nothing is linked yet). */
  | { kind: 'connectPending'; code: string }
  /** Signed in: a one-time code for the SPA, redeemable only with the browser secret (its cookie). */
  | { kind: 'signedIn'; loginCode: string; browserSecret: string };

/**
 * Spotify's callback (?code&state, or ?error&state): checks the state against this browser's nonce,
 * exchanges the code and reads the profile. A connect is kept for its account to claim; a sign-in
 * finds or creates the account, stores the tokens and queues the first sync.
 */
export async function finishAuthorization(
  deps: SpotifyDeps,
  em: EntityManager,
  query: { state: unknown; code: unknown; error: unknown },
  cookieNonce: string | undefined,
): Promise<CallbackOutcome> {
  const config = deps.config.spotify;
  const { state, code, error } = query;
  const record = typeof state === 'string' && state ? await takeState(deps.redis, state) : null;
  // Unknown, expired, reused state, or a state started in another browser: refuse.
  if (!record || !nonceMatches(record, cookieNonce)) {
    deps.logger.warn(
      `spotify callback refused: ${record ? 'state cookie missing or not matching' : 'unknown, expired or used state'}`,
    );
    return { kind: 'failed', mode: record?.mode ?? 'login', error: 'spotify_auth_failed' };
  }
  const fail = (value: SpotifyErrorCode): CallbackOutcome => ({ kind: 'failed', mode: record.mode, error: value });
  if (error !== undefined) return fail('spotify_auth_failed');
  if (typeof code !== 'string' || !code) return fail('spotify_no_code');

  let tokens: SpotifyTokens;
  try {
    tokens = await exchangeCode(config, code, record.codeVerifier);
  } catch (e) {
    deps.logger.warn(`spotify code exchange failed: ${(e as Error).message}`);
    return fail('spotify_auth_failed');
  }
  let profile: SpotifyProfile;
  try {
    const fixed = { accessToken: async () => tokens.accessToken, refresh: async () => tokens.accessToken };
    profile = await new SpotifyApi(config, fixed, { maxRateLimitRetries: 1, maxRetryAfterMs: 5000 }).me();
  } catch (e) {
    deps.logger.warn(`spotify profile read failed: ${(e as Error).message}`);
    return fail('spotify_profile_error');
  }

  if (record.mode === 'connect') {
    // Nothing is linked here: this browser may not be the starter's (a connect link sent to
    // someone else). The starter's account claims the result with an authenticated request.
    if (!record.userId) return fail('spotify_auth_failed');
    const owner = spotifyOwner(record.userId);
    const pendingCode = await savePendingConnect(deps.redis, {
      userId: record.userId,
      spotifyId: profile.id,
      accessToken: encryptSecret(tokens.accessToken, config.tokenKey, owner),
      refreshToken: encryptSecret(tokens.refreshToken, config.tokenKey, owner),
      expiresAt: tokens.expiresAt.toISOString(),
    });
    return { kind: 'connectPending', code: pendingCode };
  }

  const { user, created } = await findOrCreateSpotifyUser(em, profile);
  // The tokens and the jobs that use them commit together (the job outbox).
  await em.transactional(async (tx) => {
    const managed = await tx.findOneOrFail(UserSchema, user.id);
    const identity = spotifyIdentityOf(managed);
    if (!identity) throw new Error(`user ${user.id} signed in with Spotify but has no Spotify identity`);
    storeTokens(identity, tokens, config.tokenKey);
    if (created) await stageJob(tx, 'avatarGenerate', { userId: user.id });
    await stageJob(tx, 'podcastsSync', { source: 'spotify', userId: user.id });
  });
  deps.effects.relayOutbox();
  // The SPA needs a bearer token; a one-time code keeps it out of the URL and history, and the
  // cookie binds the code to this browser (a code sent to someone else signs nobody in).
  const browserSecret = randomSecret();
  const loginCode = await createLoginCode(deps.redis, user.id, browserSecret);
  return { kind: 'signedIn', loginCode, browserSecret };
}

/**
 * The one-time code from the callback -> a session, like dev login's answer; only with the browser
 * secret the callback gave the browser that signed in.
 */
export async function redeemLoginCode(
  deps: Pick<AppDeps, 'redis' | 'logger' | 'sessions'>,
  em: EntityManager,
  code: string,
  browserSecret: string | undefined,
  userAgent: string | undefined,
): Promise<LoginResponse> {
  const taken = await takeLoginCode(deps.redis, code, browserSecret);
  if (taken === 'other-browser') {
    deps.logger.warn('spotify sign-in code refused: presented by another browser');
    throw badRequest(SPOTIFY_SIGN_IN_TEXTS.otherBrowser);
  }
  const user = taken === 'unknown' ? null : await em.findOne(UserSchema, taken.userId);
  if (!user) throw badRequest(SPOTIFY_SIGN_IN_TEXTS.expired);
  const { token } = await deps.sessions.create(em, user.id, userAgent);
  return { token, user: toSelfUser(user) };
}

/** Claims a connect that came back from Spotify, only for the account that started it. */
export async function claimConnect(
  deps: SpotifyDeps,
  em: EntityManager,
  userId: number,
  code: string,
): Promise<SpotifyStatus> {
  const pending = await takePendingConnect(deps.redis, code);
  if (!pending) throw badRequest(SPOTIFY_CONNECT_TEXTS.expired);
  if (pending.userId !== userId) {
    deps.logger.warn(`spotify connect refused: started by user ${pending.userId}, claimed by ${userId}`);
    throw forbidden(SPOTIFY_CONNECT_TEXTS.otherAccount);
  }
  // The link and the first sync commit together (the job outbox).
  let user: User;
  try {
    user = await em.transactional(async (tx) => {
      // One claim of this person's at a time: a second one sees the identity the first linked.
      await sql(tx, 'select 1 from users where id = ? for update', [userId]);
      const linked = await tx.findOne(UserSchema, userId);
      if (!linked) throw notFound('User not found.');
      const holder = await tx.findOne(UserIdentitySchema, { provider: 'spotify', subject: pending.spotifyId });
      if (holder && holder.user.id !== linked.id) throw conflict(SPOTIFY_CONNECT_TEXTS.inUse);
      let identity = spotifyIdentityOf(linked);
      // Another Spotify account than before: its entries are not this account's library.
      if (identity && identity.subject !== pending.spotifyId) await deleteSpotifyEntries(tx, linked.id);
      identity ??= tx.create(UserIdentitySchema, { user: linked, provider: 'spotify', subject: pending.spotifyId });
      identity.subject = pending.spotifyId;
      // Encrypted for this user at the callback.
      identity.accessToken = pending.accessToken;
      identity.refreshToken = pending.refreshToken;
      identity.expiresAt = new Date(pending.expiresAt);
      await stageJob(tx, 'podcastsSync', { source: 'spotify', userId: linked.id });
      return linked;
    });
  } catch (error) {
    // Another account linked this Spotify account at the same moment.
    if (error instanceof UniqueConstraintViolationException && /provider_subject/.test(error.message)) {
      throw conflict(SPOTIFY_CONNECT_TEXTS.inUse);
    }
    throw error;
  }
  deps.effects.relayOutbox();
  deps.effects.userUpdated(user);
  return spotifyStatus(deps.config.spotify, user);
}
