import { z } from 'zod';
import { LoginResponseSchema, OkResponseSchema } from '../schemas/auth';
import {
  BlueskyFinishBodySchema,
  BlueskyLinkBodySchema,
  BlueskyLinkStartSchema,
  BlueskyStatusSchema,
} from '../schemas/bluesky';
import { BlueskyExchangeBodySchema, BlueskySignInBodySchema, BlueskySignInStartSchema } from '../schemas/sign-in';
import { defineEndpoint, RedirectSchema } from './endpoint';
import { UserIdParams } from './params';

/**
 * Linking a Bluesky (AT Protocol) identity (docs/bluesky.md). The browser legs (the callback, the
 * client metadata and JWKS) are plain public routes.
 */
export const BLUESKY_CALLBACK_PATH = '/api/bluesky/callback';
export const BLUESKY_METADATA_PATH = '/api/bluesky/client-metadata.json';
export const BLUESKY_JWKS_PATH = '/api/bluesky/jwks.json';

export const blueskyApi = {
  /** What the person's Bluesky server reads about this app (a web client's id is this URL; OAuth client metadata). */
  blueskyClientMetadata: defineEndpoint({
    method: 'GET',
    path: BLUESKY_METADATA_PATH,
    access: 'public',
    response: z.record(z.string(), z.unknown()),
  }),
  /** The public keys of the web client's signing key (private_key_jwt). */
  blueskyJwks: defineEndpoint({
    method: 'GET',
    path: BLUESKY_JWKS_PATH,
    access: 'public',
    response: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }),
  }),
  /** The person's Bluesky server sends the browser back here (?code&state&iss, or ?error). */
  blueskyCallback: defineEndpoint({
    method: 'GET',
    path: BLUESKY_CALLBACK_PATH,
    access: 'public',
    kind: 'redirect',
    // The OAuth library reads the callback's parameters from the URL itself.
    query: z.looseObject({}),
    response: RedirectSchema,
  }),
  /** The link as the owner sees it; a linked session is refreshed here when it is about to expire. */
  blueskyStatus: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/bluesky',
    access: 'owner',
    params: UserIdParams,
    response: BlueskyStatusSchema,
  }),
  /** Starts a link for this handle: answers the URL of the person's Bluesky server to approve it. */
  blueskyLink: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/bluesky/link',
    access: 'owner',
    rateLimit: { name: 'blueskyLinks' },
    params: UserIdParams,
    body: BlueskyLinkBodySchema,
    response: BlueskyLinkStartSchema,
  }),
  /** Claims the approved link (`/profile?bluesky_link=<code>`); only the account that started it (else 403). */
  blueskyFinish: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/bluesky/finish',
    access: 'owner',
    params: UserIdParams,
    body: BlueskyFinishBodySchema,
    response: BlueskyStatusSchema,
  }),
  /**
   * Starts a sign-in with Bluesky (docs/auth.md): answers the URL of the person's server; its
   * approval comes back through the callback to `/login?bluesky_code=<code>`.
   */
  blueskySignInStart: defineEndpoint({
    method: 'POST',
    path: '/api/auth/bluesky/start',
    access: 'public',
    rateLimit: { name: 'blueskyLinks' },
    body: BlueskySignInBodySchema,
    response: BlueskySignInStartSchema,
  }),
  /** Trades the one-time code of `/login?bluesky_code=` for a session (the DID's account, made if new). */
  blueskyExchange: defineEndpoint({
    method: 'POST',
    path: '/api/auth/bluesky/exchange',
    access: 'public',
    rateLimit: { name: 'codeExchange' },
    body: BlueskyExchangeBodySchema,
    response: LoginResponseSchema,
  }),
  /** Revokes the tokens at the person's server and forgets the DID, handle and tokens. */
  blueskyUnlink: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/bluesky',
    access: 'owner',
    params: UserIdParams,
    response: OkResponseSchema,
  }),
} as const;
