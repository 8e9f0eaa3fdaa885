import { LoginResponseSchema } from '../schemas/auth';
import {
  PasskeyAddBodySchema,
  PasskeyCredentialBodySchema,
  PasskeyOptionsSchema,
  PasskeySignUpOptionsBodySchema,
  ReauthStatusSchema,
  SignInWaysSchema,
} from '../schemas/sign-in';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

/**
 * Passkeys (WebAuthn): sign-up, sign-in, adding one to an account, re-authenticating (docs/auth.md).
 * Every `...Options` call issues a single-use challenge bound to the browser that asked (an
 * HttpOnly cookie names it) that expires in minutes; its `...Verify` call consumes it.
 */
export const passkeysApi = {
  /** Options to create a passkey for a new account (a discoverable credential). */
  passkeySignUpOptions: defineEndpoint({
    method: 'POST',
    path: '/api/auth/passkey/register/options',
    access: 'public',
    rateLimit: { name: 'passkeys' },
    body: PasskeySignUpOptionsBodySchema,
    response: PasskeyOptionsSchema,
  }),
  /** The new passkey opens a new account (which then sets up). */
  passkeySignUpVerify: defineEndpoint({
    method: 'POST',
    path: '/api/auth/passkey/register/verify',
    access: 'public',
    rateLimit: { name: 'passkeys' },
    body: PasskeyCredentialBodySchema,
    response: LoginResponseSchema,
  }),
  /** Options to sign in with any passkey of this site (the button, or autofill's conditional mediation). */
  passkeySignInOptions: defineEndpoint({
    method: 'POST',
    path: '/api/auth/passkey/login/options',
    access: 'public',
    rateLimit: { name: 'passkeys' },
    response: PasskeyOptionsSchema,
  }),
  passkeySignInVerify: defineEndpoint({
    method: 'POST',
    path: '/api/auth/passkey/login/verify',
    access: 'public',
    rateLimit: { name: 'signIn' },
    body: PasskeyCredentialBodySchema,
    response: LoginResponseSchema,
  }),
  /** Options to add a passkey to the caller's account (its passkeys excluded); needs a fresh proof. */
  passkeyAddOptions: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/passkeys/options',
    access: 'owner',
    rateLimit: { name: 'passkeys' },
    params: UserIdParams,
    response: PasskeyOptionsSchema,
  }),
  passkeyAdd: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/passkeys',
    access: 'owner',
    rateLimit: { name: 'passkeys' },
    params: UserIdParams,
    body: PasskeyAddBodySchema,
    response: SignInWaysSchema,
  }),
  /** Options to confirm it is the caller with one of their passkeys. */
  reauthPasskeyOptions: defineEndpoint({
    method: 'POST',
    path: '/api/auth/reauth/passkey/options',
    access: 'user',
    rateLimit: { name: 'passkeys' },
    response: PasskeyOptionsSchema,
  }),
  reauthPasskeyVerify: defineEndpoint({
    method: 'POST',
    path: '/api/auth/reauth/passkey/verify',
    access: 'user',
    rateLimit: { name: 'passkeys' },
    body: PasskeyCredentialBodySchema,
    response: ReauthStatusSchema,
  }),
} as const;
