import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIMITS, rooms, type SpotifyStatus } from '@shared/index';
import type { Redis } from 'ioredis';
import type { AppDeps } from '../../app-deps';
import { type User, UserPodcastSchema, UserSchema } from '../../core/db/entities';
import { stageJob } from '../../core/jobs/outbox';
import { toSelfUser } from '../../core/presenters/user.presenter';
import type { SpotifyProfile } from '../../core/spotify/spotify-client';
import type { SpotifyConfig } from '../../core/spotify/spotify-config';
import { clearTokens, hasTokens } from '../../core/spotify/spotify-tokens';
import { createUser, findByUsername } from '../users/user.service';

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

/** A login name for a new Spotify user, within the dev-login rules: spotify_<id>, made unique. */
async function freeUsername(em: EntityManager, spotifyId: string): Promise<string> {
  const base = `spotify_${spotifyId.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, LIMITS.usernameMaxLength - 5);
  // Usernames are unique ignoring case (a dev login may already hold "Spotify_abc").
  if (!(await findByUsername(em, base))) return base;
  for (;;) {
    const candidate = `${base}_${randomBytes(2).toString('hex')}`;
    if (!(await findByUsername(em, candidate))) return candidate;
  }
}

/** The account linked to this Spotify user, created on first sign-in (safe when two sign-ins race). */
export async function findOrCreateSpotifyUser(
  em: EntityManager,
  profile: SpotifyProfile,
): Promise<{ user: User; created: boolean }> {
  const existing = await em.findOne(UserSchema, { spotifyId: profile.id });
  if (existing) return { user: existing, created: false };
  const displayName = profile.display_name?.trim() || profile.id;
  try {
    const fork = em.fork();
    const created = await createUser(fork, {
      username: await freeUsername(fork, profile.id),
      displayName,
      signUpMethod: 'spotify',
    });
    created.spotifyId = profile.id;
    await fork.flush();
    return { user: await em.findOneOrFail(UserSchema, created.id), created: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return { user: await em.findOneOrFail(UserSchema, { spotifyId: profile.id }), created: false };
  }
}

/** Removes the entries a Spotify sync added; entries from OPML or added by hand stay. */
export async function deleteSpotifyEntries(em: EntityManager, userId: number): Promise<number> {
  return em.nativeDelete(UserPodcastSchema, { userId, source: 'spotify' });
}

/**
 * Disconnect: forget the tokens and the Spotify-sourced library entries. The spotifyId stays as
 * the account's sign-in link, so "Continue with Spotify" still finds this account.
 */
export async function disconnectSpotify(deps: Pick<AppDeps, 'emitter'>, em: EntityManager, user: User): Promise<void> {
  await em.transactional(async (tx) => {
    const managed = await tx.findOneOrFail(UserSchema, user.id);
    clearTokens(managed);
    managed.lastSpotifySync = null;
    await deleteSpotifyEntries(tx, user.id);
    // Who matches this person changes with the entries gone.
    await stageJob(tx, 'matchesRecompute', { scope: 'user', userId: user.id });
  });
  await em.refresh(user);
  deps.emitter.to(rooms.user(user.id)).emit('user:updated', toSelfUser(user));
}

export function spotifyStatus(config: SpotifyConfig, user: User): SpotifyStatus {
  return {
    available: config.configured,
    connected: hasTokens(user),
    spotifyId: user.spotifyId ?? null,
    lastSpotifySync: user.lastSpotifySync?.toISOString() ?? null,
  };
}
