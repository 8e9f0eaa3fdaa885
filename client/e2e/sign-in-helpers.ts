import { type CDPSession, expect, type Page } from '@playwright/test';
import { STORAGE_KEYS } from '../../shared/src/constants';

// Shared by the sign-in browser tests (sign-in.spec.ts, production.spec.ts).

export interface Authenticator {
  cdp: CDPSession;
  id: string;
}

/**
 * A platform authenticator (like a phone's or laptop's) that holds passkeys and verifies its user;
 * it answers every request at once, the email field's autofill (conditional mediation) included.
 */
export async function addAuthenticator(page: Page, { cdp }: { cdp?: CDPSession } = {}) {
  const session = cdp ?? (await page.context().newCDPSession(page));
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp: session, id: authenticatorId } satisfies Authenticator;
}

/**
 * A browser without passkey autofill: the virtual authenticator would answer the email field's
 * waiting request (conditional mediation) by itself, racing the button these tests press.
 */
export async function withoutAutofill(page: Page) {
  await page.addInitScript(() => {
    if (window.PublicKeyCredential) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
}

export async function signInWithButton(page: Page) {
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
}

export async function session(page: Page): Promise<{ token: string; userId: number }> {
  const token = await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.token);
  const userId = await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.userId);
  expect(token).toBeTruthy();
  return { token: token ?? '', userId: Number(userId) };
}
