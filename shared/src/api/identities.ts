import type { defineEndpoint } from './endpoint';

/** An account's ways to sign in: listing, renaming a passkey, removing one (never the last). */
export const identitiesApi = {} as const satisfies Record<string, ReturnType<typeof defineEndpoint>>;
