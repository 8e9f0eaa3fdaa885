import { OkResponseSchema } from '../schemas/auth';
import {
  BlueskyFinishBodySchema,
  BlueskyLinkBodySchema,
  BlueskyLinkStartSchema,
  BlueskyStatusSchema,
} from '../schemas/bluesky';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

/**
 * Linking a Bluesky (AT Protocol) identity (docs/bluesky.md). The browser legs (the callback, the
 * client metadata and JWKS) are plain public routes.
 */
export const blueskyApi = {
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
  /** Revokes the tokens at the person's server and forgets the DID, handle and tokens. */
  blueskyUnlink: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/bluesky',
    access: 'owner',
    params: UserIdParams,
    response: OkResponseSchema,
  }),
} as const;
