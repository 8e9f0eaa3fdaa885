// Linking a Bluesky (AT Protocol) identity to a profile (docs/bluesky.md). The link is bound to the
// signed-in person who started it: the callback links nothing, it keeps the approved session for
// 5 minutes under a one-time code and sends the browser to /profile?bluesky_link=<code>, where the
// app claims it as its signed-in account (claimLink). A link sent to someone else, or a callback
// replayed in another browser, is refused there with nothing linked. The link is the person's
// Bluesky identity (user_identities, provider 'bluesky', subject the DID).
import { createHash, randomBytes } from 'node:crypto';
import {
  isExpectedSessionError,
  TokenInvalidError,
  TokenRefreshError,
  TokenRevokedError,
} from '@atproto/oauth-client-node';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BLUESKY_TEXTS,
  type BlueskyReturnPage,
  BlueskyReturnPageSchema,
  type BlueskyStatus,
  LIMITS,
} from '@shared/index';
import type { AppDeps } from '../../app-deps';
import { decryptSession, encryptSession, forgetLink } from '../../core/bluesky/bluesky-client';
import { isLoopbackOrigin } from '../../core/bluesky/bluesky-config';
import { decryptSecret, encryptSecret, secretOwner } from '../../core/crypto/secret-box';
import { identityOf, type User, UserIdentitySchema, UserSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import type { Effects } from '../../core/realtime/effects';
import { conflict, forbidden, HttpError, notFound } from '../../http/errors';
import { type RemovedIdentity, removeIdentity } from '../identities/ways-in';
import { createUser, freeUsername } from '../users/user.service';

/** What the Bluesky flows use; `effects` is the request's unit of work (core/realtime/effects.ts). */
type BlueskyDeps = Pick<AppDeps, 'config' | 'bluesky' | 'redis' | 'logger'> & { effects: Effects };

const PENDING_TTL_SECONDS = 300;
const pendingKey = (code: string) => `bluesky:pending:${code}`;

/** What the authorization carries through Bluesky and back. */
interface AppState {
  /** The account linking; null for a sign-in (the DID then names the account). */
  userId: number | null;
  /** The origin to return to (development: localhost or 127.0.0.1); '' for this origin. */
  returnTo: string;
  /** The screen the link was started on, which the callback returns to. */
  page?: BlueskyReturnPage;
  /** SHA-256 of the nonce in the starting browser's cookie. */
  nonceHash: string;
}

/** The starting browser's cookie: a callback in any other browser creates nothing to claim. */
export const NONCE_COOKIE = 'podmatch_bluesky';
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/**
 * Development with the loopback client: the callback is on 127.0.0.1, so a browser that started on
 * localhost has no cookie there. Only then is the cookie check skipped (the claim still binds the
 * link to the account).
 */
const crossHostLoopback = (state: AppState) => /^http:\/\/localhost(:\d+)?$/.test(state.returnTo);

/** An approved link waiting to be claimed; the session is already encrypted for `userId`. */
interface PendingLink {
  userId: number;
  did: string;
  handle: string;
  stored: ReturnType<typeof encryptSession>;
}

/** An approved sign-in waiting for its browser's exchange; the session is encrypted for its code. */
interface PendingSignIn {
  did: string;
  handle: string;
  session: string;
}
const signInKey = (code: string) => `bluesky:sign-in:${code}`;
const pendingOwner = (code: string) => secretOwner(`bluesky:sign-in:${code}`);

const HANDLE_INVALID = 'handle.invalid';

/** In development the app may be browsed at localhost while the callback is on 127.0.0.1. */
function loopbackOrigin(origin: string | undefined): string {
  return origin && isLoopbackOrigin(origin) ? origin : '';
}

function sessionEnded(error: unknown): boolean {
  return (
    error instanceof TokenRefreshError ||
    error instanceof TokenRevokedError ||
    error instanceof TokenInvalidError ||
    isExpectedSessionError(error)
  );
}

/** Why linking does not work on this server (production without its settings), or null. */
export const unavailableMessage = (deps: Pick<AppDeps, 'config'>) =>
  deps.config.bluesky.client.kind === 'unavailable' ? deps.config.bluesky.client.reason : null;

/** The person's live Bluesky link: a DID with a session (one whose session ended is only a way in). */
const linkOf = (user: User) => {
  const identity = identityOf(user, 'bluesky');
  return identity?.session ? identity : undefined;
};

/**
 * The person as stored now, read into a fresh identity map: their Bluesky identity is written by
 * SQL here and by the OAuth client's stores, and a refresh of an entity already loaded would keep a
 * value since set to null (a handle lost).
 */
async function load(em: EntityManager, userId: number): Promise<User> {
  const user = await em.fork().findOne(UserSchema, userId);
  if (!user) throw notFound('No such user.');
  return user;
}

function statusOf(deps: BlueskyDeps, user: User, message?: string): BlueskyStatus {
  const link = linkOf(user);
  return {
    available: deps.bluesky !== null,
    message: message ?? unavailableMessage(deps),
    linked: Boolean(link),
    handle: link?.handle ?? null,
    did: link?.subject ?? null,
  };
}

const announce = (deps: BlueskyDeps, user: User) => deps.effects.userUpdated(user);

async function forget(deps: BlueskyDeps, em: EntityManager, userId: number): Promise<User> {
  await forgetLink(em, { userId });
  const user = await load(em, userId);
  announce(deps, user);
  return user;
}

/**
 * Revokes the person's Bluesky session at their server, if they have one (the grant stops working
 * there). A failure is logged and does not stop what follows (unlinking, deleting the account).
 */
export async function revokeBluesky(deps: Pick<AppDeps, 'bluesky' | 'logger'>, em: EntityManager, userId: number) {
  const [link] = await sql<{ subject: string }>(
    em,
    `select subject from user_identities where user_id = ? and provider = 'bluesky'`,
    [userId],
  );
  if (!link || !deps.bluesky) return;
  await deps.bluesky.oauth.revoke(link.subject).catch((error: Error) => {
    deps.logger.warn(`bluesky revoke for user ${userId} failed: ${error.message}`);
  });
}

/**
 * The link as it stands: the session is refreshed when due (a refused refresh ends the link), and
 * the handle is the one the DID document claims now, checked both ways again.
 */
export async function checkLink(deps: BlueskyDeps, em: EntityManager, userId: number): Promise<BlueskyStatus> {
  const client = deps.bluesky;
  let user = await load(em, userId);
  const did = linkOf(user)?.subject;
  if (!client || !did) return statusOf(deps, user);
  try {
    // Refreshes the tokens when they are about to expire (rotated refresh token stored).
    await client.oauth.restore(did, 'auto');
  } catch (error) {
    if (!sessionEnded(error)) {
      deps.logger.warn(`bluesky session of user ${user.id} not checked: ${(error as Error).message}`);
      return statusOf(deps, user);
    }
    user = await forget(deps, em, user.id);
    return statusOf(deps, user, BLUESKY_TEXTS.ended);
  }
  // Handles change hands: show the one the DID document claims now, checked both ways again.
  const identity = await client.oauth.identityResolver.resolve(did, { noCache: true }).catch(() => null);
  if (identity) {
    const handle = identity.handle === HANDLE_INVALID ? null : identity.handle;
    if (handle !== linkOf(user)?.handle) {
      await sql(
        em,
        `update user_identities set handle = ?, updated_at = now()
          where user_id = ? and provider = 'bluesky' and subject = ?`,
        [handle, user.id, did],
      );
      user = await load(em, user.id);
      announce(deps, user);
    }
  }
  return statusOf(deps, user, linkOf(user)?.handle ? undefined : BLUESKY_TEXTS.handleLost);
}

/**
 * Starts a link: the handle must resolve to a DID whose document claims it back. Answers the URL of
 * the person's Bluesky server and the nonce the starting browser keeps in its cookie.
 */
export async function startLink(
  deps: BlueskyDeps,
  userId: number,
  handle: string,
  origin: string | undefined,
  page: BlueskyReturnPage = 'profile',
): Promise<{ url: string; nonce: string }> {
  return authorize(deps, userId, handle, origin, page === 'login' ? 'profile' : page);
}

/** Starts a sign-in with Bluesky (docs/auth.md): as a link, for no account yet; back to /login. */
export async function startSignIn(
  deps: BlueskyDeps,
  handle: string,
  origin: string | undefined,
): Promise<{ url: string; nonce: string }> {
  return authorize(deps, null, handle, origin, 'login');
}

async function authorize(
  deps: BlueskyDeps,
  userId: number | null,
  handle: string,
  origin: string | undefined,
  page: BlueskyReturnPage,
): Promise<{ url: string; nonce: string }> {
  const client = deps.bluesky;
  if (!client) throw new HttpError(503, 'bluesky_unavailable', unavailableMessage(deps) ?? BLUESKY_TEXTS.failed);
  try {
    await client.oauth.identityResolver.resolve(handle, { noCache: true });
  } catch (error) {
    const message = (error as Error).message;
    deps.logger.info(`bluesky handle refused: ${message}`);
    throw new HttpError(
      422,
      'bluesky_handle',
      /does not include the handle/.test(message) ? BLUESKY_TEXTS.notClaimed : BLUESKY_TEXTS.unresolved,
    );
  }
  // No "already linked elsewhere" answer here: anyone could then probe which handles have a
  // profile. Only the owner of the identity learns it, after approving (claimLink).
  const returnTo = deps.config.bluesky.client.kind === 'loopback' ? loopbackOrigin(origin) : '';
  const nonce = randomBytes(32).toString('base64url');
  const state: AppState = { userId, returnTo, page, nonceHash: sha256(nonce) };
  try {
    const url = await client.oauth.authorize(handle, { state: JSON.stringify(state) });
    return { url: url.href, nonce };
  } catch (error) {
    deps.logger.warn(`bluesky authorize failed: ${(error as Error).message}`);
    throw new HttpError(502, 'bluesky_unreachable', BLUESKY_TEXTS.failed);
  }
}

/** Where the person's Bluesky server's callback leads: an error to show, or a link to claim. */
export type CallbackOutcome =
  | { kind: 'failed'; returnTo: string; page: BlueskyReturnPage; reason: string }
  | { kind: 'pending'; returnTo: string; page: BlueskyReturnPage; code: string };

/**
 * The callback (?code&state&iss, or ?error): checked against the starting browser's nonce before the
 * code is exchanged; the approved session is kept for its account to claim, linked to nobody yet.
 */
export async function finishCallback(
  deps: BlueskyDeps,
  params: URLSearchParams,
  cookieNonce: string | undefined,
): Promise<CallbackOutcome> {
  const client = deps.bluesky;
  if (!client) return { kind: 'failed', returnTo: '', page: 'profile', reason: 'unavailable' };
  const peeked = await client.appStateOf(params.get('state')).catch(() => null);
  const started = peeked ? (JSON.parse(peeked) as AppState) : null;
  const returnTo = started?.returnTo ?? '';
  // Only the pages of the enum: the state is ours, but a redirect takes nothing on trust.
  const page = BlueskyReturnPageSchema.catch('profile').parse(started?.page);
  const fail = (reason: string): CallbackOutcome => ({ kind: 'failed', returnTo, page, reason });
  // A state that cannot be read (unknown, expired, or the read failed) cannot be checked against
  // this browser: refused, never let through unchecked.
  if (!started) {
    deps.logger.warn('bluesky callback refused: its state could not be read');
    return fail('failed');
  }
  // Another browser than the one that started this link (a link URL sent to someone): refused
  // before the code is even exchanged.
  if (!crossHostLoopback(started) && (!cookieNonce || sha256(cookieNonce) !== started.nonceHash)) {
    deps.logger.warn('bluesky callback refused: started in another browser');
    return fail('other_browser');
  }
  let did: string;
  let state: AppState;
  let session: Awaited<ReturnType<typeof client.holdingSession>>['session'];
  try {
    const held = await client.holdingSession(() => client.oauth.callback(params));
    did = held.result.session.did;
    state = JSON.parse(held.result.state ?? '') as AppState;
    session = held.session;
    // The state the library spent is the one checked above.
    if (state.nonceHash !== started.nonceHash) throw new Error('the state changed during the callback');
  } catch (error) {
    deps.logger.warn(`bluesky callback refused: ${(error as Error).message}`);
    return fail('failed');
  }
  if (!session) return fail('failed');
  // The handle shown is the one the DID document claims, confirmed by resolving it back.
  const identity = await client.oauth.identityResolver.resolve(did, { noCache: true }).catch(() => null);
  if (!identity || identity.handle === HANDLE_INVALID) return fail('not_claimed');
  if (did.length > 255 || identity.handle.length > 253) return fail('failed');
  const code = randomBytes(32).toString('base64url');
  if (state.userId === null) {
    // A sign-in: the account is known only at the exchange, so the session waits encrypted for this code.
    const signIn: PendingSignIn = {
      did,
      handle: identity.handle,
      session: encryptSecret(JSON.stringify(session), deps.config.tokenKey, pendingOwner(code)),
    };
    await deps.redis.set(signInKey(code), JSON.stringify(signIn), 'EX', PENDING_TTL_SECONDS);
    return { kind: 'pending', returnTo: state.returnTo, page: 'login', code };
  }
  const pending: PendingLink = {
    userId: state.userId,
    did,
    handle: identity.handle,
    stored: encryptSession(session, deps.config.tokenKey, state.userId),
  };
  await deps.redis.set(pendingKey(code), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
  return { kind: 'pending', returnTo: state.returnTo, page, code };
}

/**
 * Claims an approved link as `userId`: only the account that started it, and only a DID no other
 * profile holds. The previous session (another identity, or an earlier grant of this one) is
 * revoked first: only one grant per person stays live at their server.
 */
export async function claimLink(
  deps: BlueskyDeps,
  em: EntityManager,
  userId: number,
  code: string,
): Promise<BlueskyStatus> {
  const raw = await deps.redis.getdel(pendingKey(code));
  if (!raw) throw new HttpError(410, 'bluesky_link_expired', BLUESKY_TEXTS.expired);
  const pending = JSON.parse(raw) as PendingLink;
  // Someone else's approved link (sent to this person, or this person's to someone else): refused.
  if (pending.userId !== userId) throw forbidden(BLUESKY_TEXTS.otherAccount);
  const [taken] = await sql<{ user_id: number }>(
    em,
    `select user_id from user_identities where provider = 'bluesky' and subject = ? and user_id <> ?`,
    [pending.did, userId],
  );
  if (taken) throw conflict(BLUESKY_TEXTS.inUse);
  await revokeBluesky(deps, em, userId);
  await saveIdentity(em, userId, pending.did, pending.handle, pending.stored);
  const user = await load(em, userId);
  announce(deps, user);
  return statusOf(deps, user);
}

/** Stores the person's Bluesky identity and session; one per person, a new DID replaces the old one. */
async function saveIdentity(
  em: EntityManager,
  userId: number,
  did: string,
  handle: string,
  stored: ReturnType<typeof encryptSession>,
): Promise<void> {
  try {
    // One Bluesky identity per person: a new DID replaces the old one in place.
    await sql(
      em,
      `insert into user_identities
         (user_id, provider, subject, handle, access_token, refresh_token, session, expires_at, created_at, updated_at)
       values (?, 'bluesky', ?, ?, ?, ?, ?, ?, now(), now())
       on conflict (user_id, provider) where provider in ('spotify', 'bluesky') do update
         set subject = excluded.subject, handle = excluded.handle, access_token = excluded.access_token,
             refresh_token = excluded.refresh_token, session = excluded.session, expires_at = excluded.expires_at,
             created_at = case when user_identities.subject = excluded.subject then user_identities.created_at
                               else excluded.created_at end,
             updated_at = excluded.updated_at`,
      [
        userId,
        did,
        handle,
        stored.accessToken,
        stored.refreshToken,
        stored.session,
        stored.expiresAt ? new Date(stored.expiresAt) : null,
      ],
    );
  } catch (error) {
    // Another profile claimed this DID at the same moment (user_identities_provider_subject_unique).
    if ((error as { code?: string }).code === '23505' || /unique/i.test((error as Error).message)) {
      throw conflict(BLUESKY_TEXTS.inUse);
    }
    throw error;
  }
}

/**
 * Trades a sign-in's one-time code for its account: the one holding this DID, or a new one made
 * with it (two sign-ins of one new DID at once make one account: the loser meets the unique index
 * and opens the winner's). The new grant replaces the account's previous one.
 */
export async function exchangeSignIn(
  deps: BlueskyDeps,
  em: EntityManager,
  code: string,
): Promise<{ user: User; created: boolean }> {
  const raw = await deps.redis.getdel(signInKey(code));
  if (!raw) throw new HttpError(400, 'bluesky_sign_in_expired', BLUESKY_TEXTS.signInExpired);
  const pending = JSON.parse(raw) as PendingSignIn;
  let session: Parameters<typeof encryptSession>[0];
  try {
    session = JSON.parse(decryptSecret(pending.session, deps.config.tokenKey, pendingOwner(code)));
  } catch {
    throw new HttpError(400, 'bluesky_sign_in_expired', BLUESKY_TEXTS.signInExpired);
  }
  for (let attempt = 1; ; attempt++) {
    const [holder] = await sql<{ user_id: number }>(
      em,
      `select user_id from user_identities where provider = 'bluesky' and subject = ?`,
      [pending.did],
    );
    if (holder) {
      await revokeBluesky(deps, em, holder.user_id);
      await saveIdentity(
        em,
        holder.user_id,
        pending.did,
        pending.handle,
        encryptSession(session, deps.config.tokenKey, holder.user_id),
      );
      const user = await load(em, holder.user_id);
      announce(deps, user);
      return { user, created: false };
    }
    try {
      const made = await em.fork().transactional(async (tx) => {
        const user = await createUser(tx, {
          username: await freeUsername(tx, `bsky_${pending.handle.split('.')[0] ?? 'person'}`),
          displayName: displayNameOf(pending.handle),
          signUpMethod: 'bluesky',
        });
        const stored = encryptSession(session, deps.config.tokenKey, user.id);
        tx.create(UserIdentitySchema, {
          user,
          provider: 'bluesky',
          subject: pending.did,
          handle: pending.handle,
          accessToken: stored.accessToken,
          refreshToken: stored.refreshToken,
          session: stored.session,
          expiresAt: stored.expiresAt,
        });
        await stageJob(tx, 'avatarGenerate', { userId: user.id });
        return user;
      });
      return { user: await load(em, made.id), created: true };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
}

/** "alice" for alice.bsky.social: the first label, as a starting display name the person can change. */
function displayNameOf(handle: string): string {
  const first = handle.split('.')[0] ?? '';
  return (first.charAt(0).toUpperCase() + first.slice(1)).slice(0, LIMITS.displayNameMaxLength) || 'New member';
}

/**
 * Revokes at the person's server the session of a Bluesky identity already removed, from its row as
 * it was (the row is gone, so the client is handed the session to revoke). A failure is logged.
 */
export async function revokeRemovedLink(
  deps: Pick<AppDeps, 'bluesky' | 'logger' | 'config'>,
  removed: RemovedIdentity,
) {
  const client = deps.bluesky;
  const session = decryptSession(removed, deps.config.tokenKey);
  if (!client || !session) return;
  await client
    .holdingSession(() => client.oauth.revoke(removed.subject), session)
    .catch((error: Error) => {
      deps.logger.warn(`bluesky revoke for user ${removed.user_id} failed: ${error.message}`);
    });
}

/**
 * Forgets the link and revokes its tokens at the person's server. Never the account's last way in
 * (features/identities/ways-in.ts): then a 409 and nothing changes. The identity is removed first,
 * under the account's lock, and its session revoked after (a revoke is a network call).
 */
export async function unlink(deps: BlueskyDeps, em: EntityManager, userId: number): Promise<void> {
  const user = await load(em, userId);
  // Any Bluesky identity, also one whose session ended (then only a way in).
  if (!identityOf(user, 'bluesky')) return;
  const removed = await removeIdentity(em, deps.config, userId, { provider: 'bluesky' });
  await revokeRemovedLink(deps, removed);
  announce(deps, await load(em, userId));
}
