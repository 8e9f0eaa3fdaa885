import { z } from 'zod';
import { IdSchema } from '../schemas/common';
import { RenamePasskeyBodySchema, SignInWaysSchema } from '../schemas/sign-in';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

const WayParams = z.strictObject({ userId: IdSchema, wayId: IdSchema });

/** An account's ways to sign in: listing, renaming a passkey, removing one (never the last). */
export const identitiesApi = {
  signInWays: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/sign-in-ways',
    access: 'owner',
    params: UserIdParams,
    response: SignInWaysSchema,
  }),
  renamePasskey: defineEndpoint({
    method: 'PATCH',
    path: '/api/users/:userId/sign-in-ways/:wayId',
    access: 'owner',
    params: WayParams,
    body: RenamePasskeyBodySchema,
    response: SignInWaysSchema,
  }),
  /** Removes a way in after a fresh proof; 409 when it is the account's last. */
  removeSignInWay: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/sign-in-ways/:wayId',
    access: 'owner',
    params: WayParams,
    response: SignInWaysSchema,
  }),
} as const;
