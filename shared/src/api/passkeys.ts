import type { defineEndpoint } from './endpoint';

/** Passkeys (WebAuthn): sign-up, sign-in, adding one to an account, re-authenticating (docs/auth.md). */
export const passkeysApi = {} as const satisfies Record<string, ReturnType<typeof defineEndpoint>>;
