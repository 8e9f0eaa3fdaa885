import { api } from '@shared/api';
import { SuspendedAppealBodySchema, SuspendedErrorSchema } from '@shared/schemas/moderation';
import type { SelfUser } from '@shared/schemas/user';
import { apiRequest, checkInput, endpointQuery } from '@/lib/api-client';
import { readStoredToken } from '@/lib/session';
import { isSuspendedSignIn, markSuspensionAppealed, rememberSuspension } from '@/lib/suspension';

// The typed auth calls. The login screen imports this file dynamically, on first use, so the
// shared endpoint table (and zod, and the WebAuthn helpers) is not part of the first load of /login.

/** A session from any way in, with the query key its user is cached under. */
export interface SignedIn {
  token: string;
  user: SelfUser;
  userQueryKey: readonly unknown[];
}

/**
 * The session of a sign-in that worked. A sign-in refused because the account is suspended or banned
 * (any way in: 403 `suspended`) leaves its statement of reasons for the login screen, then fails as usual.
 */
async function signedIn(answer: Promise<{ token: string; user: SelfUser }>): Promise<SignedIn> {
  try {
    const { token, user } = await answer;
    return { token, user, userQueryKey: endpointQuery(api.getUser, { params: { userId: user.id } }).queryKey };
  } catch (error) {
    if (isSuspendedSignIn(error)) {
      const body = SuspendedErrorSchema.safeParse((error as { body?: unknown }).body);
      if (body.success) {
        const { notice, appealToken, message } = body.data;
        rememberSuspension({ notice, appealToken, message, appealSent: false });
      }
    }
    throw error;
  }
}

/** POST /api/auth/dev-login; the answer must hold token and user (LoginResponseSchema). */
export async function requestDevLogin(username: string) {
  return signedIn(apiRequest(api.devLogin, { body: { username } }));
}

/** POST /api/auth/spotify/exchange: the one-time code of /login?spotify_code= -> token and user. */
export async function requestSpotifyExchange(code: string) {
  return signedIn(apiRequest(api.spotifyExchange, { body: { code } }));
}

/** POST /api/auth/bluesky/exchange: the one-time code of /login?bluesky_code= -> token and user. */
export async function requestBlueskyExchange(code: string) {
  return signedIn(apiRequest(api.blueskyExchange, { body: { code } }));
}

/** POST /api/auth/bluesky/start: the URL of the person's Bluesky server to approve the sign-in. */
export async function requestBlueskySignIn(handle: string) {
  return (await apiRequest(api.blueskySignInStart, { body: { handle } })).url;
}

/** POST /api/auth/email/code: sends a 6-digit code (the same answer for any address). */
export function requestEmailCode(email: string) {
  return apiRequest(api.emailCodeStart, { body: { email } });
}

/** POST /api/auth/email/verify: the code -> a session (a new address gets an account). */
export async function requestEmailSignIn(email: string, code: string) {
  return signedIn(apiRequest(api.emailCodeVerify, { body: { email, code } }));
}

/** Signs in with a passkey: the browser's picker, or `autofill` (the passkey offered in the email field). */
export async function requestPasskeySignIn({ autofill = false } = {}) {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const { options } = await apiRequest(api.passkeySignInOptions, {});
  const response = await startAuthentication({
    // biome-ignore lint/suspicious/noExplicitAny: the server made these with @simplewebauthn/server
    optionsJSON: options as any,
    useBrowserAutofill: autofill,
  });
  return signedIn(apiRequest(api.passkeySignInVerify, { body: { response: { ...response } } }));
}

/** Creates a passkey for a new account and signs in with it. */
export async function requestPasskeySignUp() {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const { options } = await apiRequest(api.passkeySignUpOptions, {});
  // biome-ignore lint/suspicious/noExplicitAny: the server made these with @simplewebauthn/server
  const response = await startRegistration({ optionsJSON: options as any });
  return signedIn(apiRequest(api.passkeySignUpVerify, { body: { response: { ...response } } }));
}

/** Whether this browser can offer passkeys in the email field's autofill (conditional mediation). */
export async function passkeyAutofillSupported(): Promise<boolean> {
  const { browserSupportsWebAuthnAutofill } = await import('@simplewebauthn/browser');
  return browserSupportsWebAuthnAutofill();
}

/** POST /api/appeals: a suspended person's appeal, with the token their refused sign-in gave them. */
export async function requestSuspendedAppeal(token: string, text: string): Promise<void> {
  const body = checkInput(SuspendedAppealBodySchema, { token, text });
  await apiRequest(api.appealWhileSuspended, { body });
  markSuspensionAppealed();
}

/** GET /api/auth/methods: what this server offers (Spotify only with its credentials). */
export function requestSignInMethods() {
  return apiRequest(api.signInMethods, {});
}

/** POST /api/auth/logout, best effort. Never throws: logging out must always work locally. */
export async function revokeServerSession(): Promise<void> {
  if (!readStoredToken()) return;
  try {
    await apiRequest(api.logout, {});
  } catch {
    // Offline or already expired: the local session ends anyway.
  }
}
