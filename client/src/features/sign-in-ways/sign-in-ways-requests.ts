import { api } from '@shared/api';
import { apiRequest, endpointQuery } from '@/lib/api-client';

// The calls behind "Ways to sign in" (docs/auth.md). WebAuthn's browser helpers load on first use.

export function signInWaysQuery(userId: number) {
  return endpointQuery(api.signInWays, { params: { userId } });
}

/** Adds a passkey made on this device to the account (needs a fresh confirmation). */
export async function addPasskey(userId: number) {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const { options } = await apiRequest(api.passkeyAddOptions, { params: { userId } });
  // biome-ignore lint/suspicious/noExplicitAny: the server made these with @simplewebauthn/server
  const response = await startRegistration({ optionsJSON: options as any });
  return apiRequest(api.passkeyAdd, { params: { userId }, body: { response: { ...response } } });
}

export function renamePasskey(userId: number, wayId: number, name: string) {
  return apiRequest(api.renamePasskey, { params: { userId, wayId }, body: { name } });
}

export function removeWay(userId: number, wayId: number) {
  return apiRequest(api.removeSignInWay, { params: { userId, wayId } });
}

/** Sends a code to a new address for this account. */
export function startEmailLink(userId: number, email: string) {
  return apiRequest(api.emailLinkStart, { params: { userId }, body: { email } });
}

export function finishEmailLink(userId: number, email: string, code: string) {
  return apiRequest(api.emailLinkVerify, { params: { userId }, body: { email, code } });
}

/** "Confirm it's you" with one of the account's passkeys. */
export async function confirmWithPasskey() {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const { options } = await apiRequest(api.reauthPasskeyOptions, {});
  // biome-ignore lint/suspicious/noExplicitAny: the server made these with @simplewebauthn/server
  const response = await startAuthentication({ optionsJSON: options as any });
  return apiRequest(api.reauthPasskeyVerify, { body: { response: { ...response } } });
}

export function sendConfirmationCode() {
  return apiRequest(api.reauthEmailStart, {});
}

export function confirmWithCode(code: string) {
  return apiRequest(api.reauthEmailVerify, { body: { code } });
}
