import type { defineEndpoint } from './endpoint';

/** Signing in, linking an address and re-authenticating with an emailed one-time code (docs/auth.md). */
export const emailAuthApi = {} as const satisfies Record<string, ReturnType<typeof defineEndpoint>>;
