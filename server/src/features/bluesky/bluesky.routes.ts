// Linking a Bluesky (AT Protocol) identity to a profile (docs/bluesky.md). The link is bound to the
// signed-in person who started it: the callback links nothing, it keeps the approved session for
// 5 minutes under a one-time code and sends the browser to /profile?bluesky_link=<code>, where the
// app claims it as its signed-in account (POST .../bluesky/finish). A link sent to someone else, or a
// callback replayed in another browser, is refused there with nothing linked.
import { createHash, randomBytes } from 'node:crypto';
import {
  isExpectedSessionError,
  TokenInvalidError,
  TokenRefreshError,
  TokenRevokedError,
} from '@atproto/oauth-client-node';
import type { EntityManager } from '@mikro-orm/postgresql';
import { api, BLUESKY_TEXTS, type BlueskyStatus, rooms } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { BLUESKY_CALLBACK_PATH, BLUESKY_JWKS_PATH, BLUESKY_METADATA_PATH } from '../../core/atproto/atproto-config';
import { encryptSession, forgetLink } from '../../core/atproto/bluesky-client';
import { UserSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { readCookie } from '../../http/cookies';
import { conflict, forbidden, HttpError, notFound } from '../../http/errors';
import { clientAddress } from '../../http/rate-limits';
import { mount } from '../../http/route';

const PENDING_TTL_SECONDS = 300;
const pendingKey = (code: string) => `bluesky:pending:${code}`;

/** What the authorization carries through Bluesky and back. */
interface AppState {
  userId: number;
  /** The origin to return to (development: localhost or 127.0.0.1); '' for this origin. */
  returnTo: string;
  /** SHA-256 of the nonce in the starting browser's cookie. */
  nonceHash: string;
}

/** The starting browser's cookie: a callback in any other browser creates nothing to claim. */
const NONCE_COOKIE = 'podmatch_bluesky';
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

const HANDLE_INVALID = 'handle.invalid';

/** In development the app may be browsed at localhost while the callback is on 127.0.0.1. */
function loopbackOrigin(req: Request): string {
  const origin = req.get('origin') ?? '';
  return /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin) ? origin : '';
}

function sessionEnded(error: unknown): boolean {
  return (
    error instanceof TokenRefreshError ||
    error instanceof TokenRevokedError ||
    error instanceof TokenInvalidError ||
    isExpectedSessionError(error)
  );
}

export function blueskyRoutes(deps: AppDeps): Router {
  const router = Router();
  const config = deps.config.atproto;
  const client = deps.bluesky;
  const unavailableMessage = config.client.kind === 'unavailable' ? config.client.reason : null;

  const load = async (em: EntityManager, userId: number) => {
    const user = await em.findOne(UserSchema, userId, { refresh: true });
    if (!user) throw notFound('No such user.');
    return user;
  };

  const statusOf = (user: { atpDid?: string | null; atpHandle?: string | null }, message?: string): BlueskyStatus => ({
    available: client !== null,
    message: message ?? unavailableMessage,
    linked: Boolean(user.atpDid),
    handle: user.atpHandle ?? null,
    did: user.atpDid ?? null,
  });

  const forget = async (em: EntityManager, userId: number) => {
    await forgetLink(em, { userId });
    const user = await load(em, userId);
    deps.emitter.to(rooms.user(userId)).emit('user:updated', toSelfUser(user));
    return user;
  };

  // What the person's Bluesky server reads about this app (a web client's id is this URL).
  router.get(BLUESKY_METADATA_PATH, (_req, res) => {
    if (!client) return res.status(404).json({ error: 'not_found', message: unavailableMessage });
    res.json(client.oauth.clientMetadata);
  });
  router.get(BLUESKY_JWKS_PATH, (_req, res) => {
    res.json(client?.oauth.jwks ?? { keys: [] });
  });

  mount(router, api.blueskyStatus, async ({ params, req }) => {
    let user = await load(req.em, params.userId);
    if (!client || !user.atpDid) return statusOf(user);
    try {
      // Refreshes the tokens when they are about to expire (rotated refresh token stored).
      await client.oauth.restore(user.atpDid, 'auto');
    } catch (error) {
      if (!sessionEnded(error)) {
        deps.logger.warn(`bluesky session of user ${user.id} not checked: ${(error as Error).message}`);
        return statusOf(user);
      }
      user = await forget(req.em, user.id);
      return statusOf(user, BLUESKY_TEXTS.ended);
    }
    // Handles change hands: show the one the DID document claims now, checked both ways again.
    const identity = await client.oauth.identityResolver.resolve(user.atpDid, { noCache: true }).catch(() => null);
    if (identity) {
      const handle = identity.handle === HANDLE_INVALID ? null : identity.handle;
      if (handle !== user.atpHandle) {
        await sql(req.em, 'update users set atp_handle = ?, updated_at = now() where id = ? and atp_did = ?', [
          handle,
          user.id,
          user.atpDid,
        ]);
        user = await load(req.em, user.id);
        deps.emitter.to(rooms.user(user.id)).emit('user:updated', toSelfUser(user));
      }
    }
    return statusOf(user, user.atpHandle ? undefined : BLUESKY_TEXTS.handleLost);
  });

  mount(router, api.blueskyLink, async ({ params, body, req, res }) => {
    if (!client) throw new HttpError(503, 'bluesky_unavailable', unavailableMessage ?? BLUESKY_TEXTS.failed);
    await deps.limits.take('blueskyLinks', { user: params.userId, ip: clientAddress(req) });
    // The handle must resolve to a DID whose document claims it back.
    try {
      await client.oauth.identityResolver.resolve(body.handle, { noCache: true });
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
    // profile. Only the owner of the identity learns it, after approving (finish).
    const returnTo = config.client.kind === 'loopback' ? loopbackOrigin(req) : '';
    const nonce = randomBytes(32).toString('base64url');
    const state: AppState = { userId: params.userId, returnTo, nonceHash: sha256(nonce) };
    res.cookie(NONCE_COOKIE, nonce, {
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.config.isProduction,
      path: BLUESKY_CALLBACK_PATH,
      maxAge: 600_000,
    });
    try {
      const url = await client.oauth.authorize(body.handle, { state: JSON.stringify(state) });
      return { url: url.href };
    } catch (error) {
      deps.logger.warn(`bluesky authorize failed: ${(error as Error).message}`);
      throw new HttpError(502, 'bluesky_unreachable', BLUESKY_TEXTS.failed);
    }
  });

  // The person's Bluesky server sends the browser back here (?code&state&iss, or ?error).
  router.get(BLUESKY_CALLBACK_PATH, async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const params = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
    if (!client) return res.redirect(302, '/profile?bluesky_error=unavailable');
    const peeked = await client.appStateOf(params.get('state')).catch(() => null);
    const started = peeked ? (JSON.parse(peeked) as AppState) : null;
    const returnTo = started?.returnTo ?? '';
    const fail = (reason: string) => res.redirect(302, `${returnTo}/profile?bluesky_error=${reason}`);
    const nonce = readCookie(req, NONCE_COOKIE);
    res.clearCookie(NONCE_COOKIE, { path: BLUESKY_CALLBACK_PATH });
    // A state that cannot be read (unknown, expired, or the read failed) cannot be checked against
    // this browser: refused, never let through unchecked.
    if (!started) {
      deps.logger.warn('bluesky callback refused: its state could not be read');
      return fail('failed');
    }
    // Another browser than the one that started this link (a link URL sent to someone): refused
    // before the code is even exchanged.
    if (!crossHostLoopback(started) && (!nonce || sha256(nonce) !== started.nonceHash)) {
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
    const pending: PendingLink = {
      userId: state.userId,
      did,
      handle: identity.handle,
      stored: encryptSession(session, deps.config.tokenKey, state.userId),
    };
    await deps.redis.set(pendingKey(code), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
    res.redirect(302, `${state.returnTo}/profile?bluesky_link=${code}`);
  });

  mount(router, api.blueskyFinish, async ({ params, body, req }) => {
    const raw = await deps.redis.getdel(pendingKey(body.code));
    if (!raw) throw new HttpError(410, 'bluesky_link_expired', BLUESKY_TEXTS.expired);
    const pending = JSON.parse(raw) as PendingLink;
    // Someone else's approved link (sent to this person, or this person's to someone else): refused.
    if (pending.userId !== params.userId) throw forbidden(BLUESKY_TEXTS.otherAccount);
    const [taken] = await sql<{ id: number }>(req.em, 'select id from users where atp_did = ? and id <> ?', [
      pending.did,
      params.userId,
    ]);
    if (taken) throw conflict(BLUESKY_TEXTS.inUse);
    // The previous session (another identity, or an earlier grant of this one) is revoked first:
    // only one grant per person stays live at their server.
    const previous = await load(req.em, params.userId);
    if (client && previous.atpDid) await client.oauth.revoke(previous.atpDid).catch(() => undefined);
    const { stored } = pending;
    try {
      await sql(
        req.em,
        `update users set atp_did = ?, atp_handle = ?, atp_access_token = ?, atp_refresh_token = ?,
                atp_oauth_session = ?, atp_refresh_token_expiry = ?, updated_at = now()
          where id = ?`,
        [
          pending.did,
          pending.handle,
          stored.accessToken,
          stored.refreshToken,
          stored.session,
          stored.expiresAt ? new Date(stored.expiresAt) : null,
          params.userId,
        ],
      );
    } catch (error) {
      if ((error as { code?: string }).code === '23505' || /unique/i.test((error as Error).message)) {
        throw conflict(BLUESKY_TEXTS.inUse);
      }
      throw error;
    }
    const user = await load(req.em, params.userId);
    deps.emitter.to(rooms.user(user.id)).emit('user:updated', toSelfUser(user));
    return statusOf(user);
  });

  mount(router, api.blueskyUnlink, async ({ params, req }) => {
    const user = await load(req.em, params.userId);
    if (client && user.atpDid) {
      // Revokes the tokens at the person's Bluesky server; the link goes either way.
      await client.oauth.revoke(user.atpDid).catch((error: Error) => {
        deps.logger.warn(`bluesky revoke for user ${user.id} failed: ${error.message}`);
      });
    }
    await forget(req.em, user.id);
    return { ok: true as const };
  });

  return router;
}
