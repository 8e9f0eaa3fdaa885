import { LoginResponseSchema } from '../schemas/auth';
import {
  EmailCodeSentSchema,
  EmailCodeStartBodySchema,
  EmailCodeVerifyBodySchema,
  ReauthEmailVerifyBodySchema,
  ReauthStatusSchema,
  SignInWaysSchema,
} from '../schemas/sign-in';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

/** Signing in, linking an address and re-authenticating with an emailed one-time code (docs/auth.md). */
export const emailAuthApi = {
  /** Sends a sign-in code to this address; the same answer whether it has an account or not. */
  emailCodeStart: defineEndpoint({
    method: 'POST',
    path: '/api/auth/email/code',
    access: 'public',
    rateLimit: { name: 'emailCodes', per: 'accountName' },
    body: EmailCodeStartBodySchema,
    response: EmailCodeSentSchema,
  }),
  /** Trades a right code for a session; an address without an account gets one (it then sets up). */
  emailCodeVerify: defineEndpoint({
    method: 'POST',
    path: '/api/auth/email/verify',
    access: 'public',
    rateLimit: { name: 'signIn', per: 'accountName' },
    body: EmailCodeVerifyBodySchema,
    response: LoginResponseSchema,
  }),
  /** Sends a code to an address to add to (or replace on) the caller's account; needs a fresh proof. */
  emailLinkStart: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/email/code',
    access: 'owner',
    rateLimit: { name: 'emailCodes' },
    params: UserIdParams,
    body: EmailCodeStartBodySchema,
    response: EmailCodeSentSchema,
  }),
  /** The code sent to the new address makes it the account's email: a way in. */
  emailLinkVerify: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/email/verify',
    access: 'owner',
    rateLimit: { name: 'signIn' },
    params: UserIdParams,
    body: EmailCodeVerifyBodySchema,
    response: SignInWaysSchema,
  }),
  /** Sends a code to the caller's own address, to confirm it is them before changing a way in. */
  reauthEmailStart: defineEndpoint({
    method: 'POST',
    path: '/api/auth/reauth/email/code',
    access: 'user',
    rateLimit: { name: 'emailCodes' },
    response: EmailCodeSentSchema,
  }),
  reauthEmailVerify: defineEndpoint({
    method: 'POST',
    path: '/api/auth/reauth/email/verify',
    access: 'user',
    rateLimit: { name: 'signIn' },
    body: ReauthEmailVerifyBodySchema,
    response: ReauthStatusSchema,
  }),
} as const;
