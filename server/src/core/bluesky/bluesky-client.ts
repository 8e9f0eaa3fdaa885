// The AT Protocol OAuth client of the Bluesky link (docs/bluesky.md): @atproto/oauth-client-node
// (DPoP, PKCE, PAR) with its stores here. Authorization states live in PostgreSQL for 10 minutes,
// encrypted (any server instance may receive the callback). Sessions live on the person's Bluesky
// identity (user_identities, provider 'bluesky', subject the DID), encrypted and bound to that person
// (a ciphertext copied onto another row does not decrypt). During
// a callback the session is held in memory until the person who started the link claims it. Every
// request the library makes goes through an SSRF-safe fetch: the servers it talks to are named by
// documents anyone can publish.

import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  buildAtprotoLoopbackClientMetadata,
  JoseKey,
  NodeOAuthClient,
  type NodeSavedSession,
  type NodeSavedState,
  type RuntimeLock,
} from '@atproto/oauth-client-node';
import { safeFetchWrap } from '@atproto-labs/fetch-node';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { decryptSecret, encryptSecret, secretOwner } from '../crypto/secret-box';
import { sql } from '../db/sql';

import { type AtprotoConfig, BLUESKY_JWKS_PATH, BLUESKY_METADATA_PATH, BLUESKY_SCOPE } from './bluesky-config';

const STATE_TTL_SECONDS = 600;
const FETCH_TIMEOUT_MS = 10_000;
/** Bluesky's ciphertexts are bound to the person and to Bluesky (not swappable with Spotify's columns). */
export const blueskyOwner = (userId: number) => secretOwner(`bluesky:user:${userId}`);
/** States hold a DPoP private key and the PKCE verifier: encrypted too, bound to their key. */
export const stateOwner = (key: string) => secretOwner(`bluesky-state:${key}`);

function readState(data: string, key: string, tokenKey: Buffer): NodeSavedState | undefined {
  try {
    return JSON.parse(decryptSecret(data, tokenKey, stateOwner(key))) as NodeSavedState;
  } catch {
    return undefined;
  }
}

/** A callback in progress: the session the client stores goes here, not onto anyone's row yet. */
interface CallbackHold {
  session?: NodeSavedSession;
}
const callbackHold = new AsyncLocalStorage<CallbackHold>();

/** What is encrypted into the identity's `session`: the session without its two tokens. */
type SessionRest = Omit<NodeSavedSession, 'tokenSet'> & {
  tokenSet: Omit<NodeSavedSession['tokenSet'], 'access_token' | 'refresh_token'>;
};

/** A stored Bluesky session: the columns of the person's identity row. */
export interface SessionRow {
  user_id: number;
  access_token: string | null;
  refresh_token: string | null;
  session: string | null;
}

/** The stored columns of a session, encrypted for `userId`. */
export function encryptSession(session: NodeSavedSession, key: Buffer, userId: number) {
  const { access_token, refresh_token, ...tokenRest } = session.tokenSet;
  const rest: SessionRest = { ...session, tokenSet: tokenRest };
  const owner = blueskyOwner(userId);
  return {
    accessToken: encryptSecret(access_token, key, owner),
    refreshToken: refresh_token ? encryptSecret(refresh_token, key, owner) : null,
    session: encryptSecret(JSON.stringify(rest), key, owner),
    expiresAt: tokenRest.expires_at ? new Date(tokenRest.expires_at) : null,
  };
}

/** The stored session of an identity row; undefined for a row without one or one that no longer decrypts. */
export function decryptSession(row: SessionRow, key: Buffer): NodeSavedSession | undefined {
  if (!row.access_token || !row.session) return undefined;
  try {
    const owner = blueskyOwner(row.user_id);
    const rest = JSON.parse(decryptSecret(row.session, key, owner)) as SessionRest;
    return {
      ...rest,
      tokenSet: {
        ...rest.tokenSet,
        access_token: decryptSecret(row.access_token, key, owner),
        ...(row.refresh_token ? { refresh_token: decryptSecret(row.refresh_token, key, owner) } : {}),
      },
    } as NodeSavedSession;
  } catch {
    // Another key, another row's ciphertext, or tampered: as if there were no session (link again).
    return undefined;
  }
}

/** Writes `session` onto the Bluesky identity of `userId` (the refreshed tokens of a linked person). */
export async function saveSession(em: EntityManager, key: Buffer, userId: number, session: NodeSavedSession) {
  const stored = encryptSession(session, key, userId);
  await sql(
    em,
    `update user_identities set access_token = ?, refresh_token = ?, session = ?, expires_at = ?, updated_at = now()
      where user_id = ? and provider = 'bluesky' and subject = ?`,
    [stored.accessToken, stored.refreshToken, stored.session, stored.expiresAt, userId, session.tokenSet.sub],
  );
}

/** Forgets a link and its session: this person's, or whoever's holds this DID. */
export async function forgetLink(em: EntityManager, of: { userId: number } | { did: string }): Promise<void> {
  // The session and the handle shown go; the DID stays as a way to sign in (docs/auth.md): a
  // person whose only way in is Bluesky signs in again with a new grant rather than being locked out.
  const forget = `update user_identities
       set access_token = null, refresh_token = null, session = null, expires_at = null, handle = null,
           updated_at = now()
     where provider = 'bluesky' and`;
  if ('userId' in of) await sql(em, `${forget} user_id = ?`, [of.userId]);
  else await sql(em, `${forget} subject = ?`, [of.did]);
}

/**
 * A lock across server instances (Redis SET NX with a token), so two instances never refresh one
 * session at once: refresh tokens are single use, and the loser of such a race would end the link.
 */
function redisLock(redis: Redis): RuntimeLock {
  return async (name, fn) => {
    const key = `bluesky:lock:${name}`;
    const token = randomUUID();
    const deadline = Date.now() + 10_000;
    // Longer than a refresh can take (each request times out after FETCH_TIMEOUT_MS).
    while ((await redis.set(key, token, 'PX', 60_000, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new Error(`lock ${name} not acquired`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    try {
      return await fn();
    } finally {
      await redis
        .eval(
          "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
          1,
          key,
          token,
        )
        .catch(() => undefined);
    }
  };
}

/**
 * The fetch of every request the OAuth library makes. In production it refuses private, loopback and
 * link-local addresses, IP hosts, custom ports and plain http (the servers are named by documents
 * anyone can publish); outside production the stand-in on localhost must be reachable.
 */
export function blueskyFetch(allowHttp: boolean) {
  return safeFetchWrap(
    allowHttp
      ? {
          ssrfProtection: false,
          allowHttp: true,
          allowCustomPort: true,
          allowImplicitRedirect: true,
          timeout: FETCH_TIMEOUT_MS,
        }
      : { ssrfProtection: true, allowHttp: false, allowImplicitRedirect: true, timeout: FETCH_TIMEOUT_MS },
  );
}

export interface BlueskyClient {
  oauth: NodeOAuthClient;
  /** The app state of an authorization in progress (where to send a callback that fails). */
  appStateOf(stateKey: string | null): Promise<string | null>;
  /**
   * Runs a callback with its session held here; answers what it answered and the held session.
   * `session`: the one to hold from the start (revoking a link whose row is already deleted).
   */
  holdingSession<T>(
    run: () => Promise<T>,
    session?: NodeSavedSession,
  ): Promise<{ result: T; session: NodeSavedSession | undefined }>;
}

export async function createBlueskyClient(deps: {
  config: AtprotoConfig;
  orm: MikroORM;
  redis: Redis;
  tokenKey: Buffer;
}): Promise<BlueskyClient | null> {
  const { config, orm, redis, tokenKey } = deps;
  if (config.client.kind === 'unavailable') return null;

  const stateStore = {
    async get(key: string): Promise<NodeSavedState | undefined> {
      const [row] = await sql<{ data: string }>(
        orm.em.fork(),
        'select data from bluesky_oauth_states where key = ? and expires_at > now()',
        [key],
      );
      return row ? readState(row.data, key, tokenKey) : undefined;
    },
    async set(key: string, value: NodeSavedState): Promise<void> {
      const em = orm.em.fork();
      // Abandoned authorizations (never called back) go here, a few at a time.
      await sql(
        em,
        'delete from bluesky_oauth_states where key in (select key from bluesky_oauth_states where expires_at < now() limit 100)',
      );
      await sql(
        em,
        `insert into bluesky_oauth_states (key, data, expires_at) values (?, ?, now() + make_interval(secs => ?))
         on conflict (key) do update set data = excluded.data, expires_at = excluded.expires_at`,
        [key, encryptSecret(JSON.stringify(value), tokenKey, stateOwner(key)), STATE_TTL_SECONDS],
      );
    },
    async del(key: string): Promise<void> {
      await sql(orm.em.fork(), 'delete from bluesky_oauth_states where key = ?', [key]);
    },
  };

  const rowOf = async (did: string) =>
    (
      await sql<SessionRow>(
        orm.em.fork(),
        `select user_id, access_token, refresh_token, session from user_identities
          where provider = 'bluesky' and subject = ?`,
        [did],
      )
    )[0];

  const sessionStore = {
    async get(did: string): Promise<NodeSavedSession | undefined> {
      const hold = callbackHold.getStore();
      if (hold) return hold.session;
      const row = await rowOf(did);
      return row ? decryptSession(row, tokenKey) : undefined;
    },
    async set(did: string, session: NodeSavedSession): Promise<void> {
      const hold = callbackHold.getStore();
      if (hold) {
        hold.session = session;
        return;
      }
      const row = await rowOf(did);
      if (row) await saveSession(orm.em.fork(), tokenKey, row.user_id, session);
    },
    async del(did: string): Promise<void> {
      const hold = callbackHold.getStore();
      if (hold) {
        hold.session = undefined;
        return;
      }
      // The session ended (revoked, refresh refused): the link goes with it.
      await forgetLink(orm.em.fork(), { did });
    },
  };

  const common = {
    fetch: blueskyFetch(config.allowHttp),
    stateStore,
    sessionStore,
    requestLock: redisLock(redis),
    plcDirectoryUrl: config.plcUrl,
    allowHttp: config.allowHttp,
    ...(config.handleResolver ? { handleResolver: config.handleResolver } : {}),
  };
  const oauth =
    config.client.kind === 'web'
      ? new NodeOAuthClient({
          ...common,
          clientMetadata: {
            client_id: `${config.client.publicUrl}${BLUESKY_METADATA_PATH}`,
            client_name: 'PodMatch',
            client_uri: config.client.publicUrl,
            redirect_uris: [config.callbackUrl],
            scope: BLUESKY_SCOPE,
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            application_type: 'web',
            token_endpoint_auth_method: 'private_key_jwt',
            token_endpoint_auth_signing_alg: 'ES256',
            dpop_bound_access_tokens: true,
            jwks_uri: `${config.client.publicUrl}${BLUESKY_JWKS_PATH}`,
          },
          keyset: [await JoseKey.fromImportable(config.client.privateKey, 'podmatch-1')],
        })
      : new NodeOAuthClient({
          ...common,
          clientMetadata: buildAtprotoLoopbackClientMetadata({
            scope: BLUESKY_SCOPE,
            redirect_uris: [config.callbackUrl as `http://127.0.0.1${string}`],
          }),
        });

  return {
    oauth,
    async appStateOf(key) {
      return key ? ((await stateStore.get(key))?.appState ?? null) : null;
    },
    async holdingSession(run, session) {
      const hold: CallbackHold = { session };
      const result = await callbackHold.run(hold, run);
      return { result, session: hold.session };
    },
  };
}
