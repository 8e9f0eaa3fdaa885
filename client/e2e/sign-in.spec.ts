import { type CDPSession, expect, type Page, test } from '@playwright/test';
import { STORAGE_KEYS } from '../../shared/src/constants';
import { screenshotForDocs, toasts, updateUser } from './helpers';

// Sign-in for everyone (docs/auth.md) in Chromium. Passkeys use a virtual authenticator (the Chrome
// DevTools Protocol's WebAuthn domain) and need a host name, not an IP (WebAuthn refuses IP
// relying parties): these tests browse the stack at localhost.

/** The stack's URL on localhost. */
function localhost(path: string): string {
  const base = new URL(test.info().project.use.baseURL ?? '');
  base.hostname = 'localhost';
  return new URL(path, base).href;
}

interface Authenticator {
  cdp: CDPSession;
  id: string;
}

/**
 * A platform authenticator (like a phone's or laptop's) that holds passkeys and verifies its user.
 * While `present`, it answers every request at once, the email field's autofill (conditional
 * mediation) included: the login screen then signs in by itself.
 */
async function addAuthenticator(page: Page, { cdp, present = true }: { cdp?: CDPSession; present?: boolean } = {}) {
  const session = cdp ?? (await page.context().newCDPSession(page));
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: present,
    },
  });
  return { cdp: session, id: authenticatorId } satisfies Authenticator;
}

/** Whether the person touches the authenticator when asked. */
async function present(auth: Authenticator, enabled: boolean) {
  await auth.cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId: auth.id, enabled });
}

/** "Sign in with a passkey": the click, then the touch (the autofill's request waited without one). */
async function signInWithButton(page: Page, auth: Authenticator) {
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await present(auth, true);
}

async function session(page: Page): Promise<{ token: string; userId: number }> {
  const token = await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.token);
  const userId = await page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.userId);
  expect(token).toBeTruthy();
  return { token: token ?? '', userId: Number(userId) };
}

async function logOut(page: Page) {
  await page.getByTestId('nav-profile').click();
  await page.getByRole('button', { name: 'Log out', exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/login');
}

function ways(page: Page) {
  return page.getByTestId('sign-in-ways-card').getByTestId('sign-in-way');
}

test('passkeys: sign up, sign out, sign in (button and autofill), add a second, remove the first; the removed one is refused', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const phone = await addAuthenticator(page);
  await page.goto(localhost('/login'));
  await page.getByRole('button', { name: 'New here? Create an account with a passkey' }).click();
  // A new account sets up first.
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  const me = await session(page);
  await updateUser(
    { page, name: 'Passkey Person', id: me.userId, token: me.token },
    {
      setupComplete: true,
      displayName: 'Passkey Person',
    },
  );
  await page.goto(localhost('/'));
  await expect(page.getByTestId('user-display-name')).toHaveText('Passkey Person');
  await present(phone, false);
  await logOut(page);

  await signInWithButton(page, phone);
  await expect(page).toHaveURL((url) => url.pathname === '/');
  expect((await session(page)).userId).toBe(me.userId);

  // The phone's passkey, kept to try again after it is removed.
  const { credentials } = await phone.cdp.send('WebAuthn.getCredentials', { authenticatorId: phone.id });
  expect(credentials).toHaveLength(1);

  // A second device: the laptop's authenticator instead of the phone's.
  await phone.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: phone.id });
  const laptop = await addAuthenticator(page, { cdp: phone.cdp });
  await page.getByTestId('nav-profile').click();
  await expect(ways(page)).toHaveCount(1);
  // Signed in moments ago: no new confirmation needed.
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(toasts(page).getByText('Passkey added')).toBeVisible();
  await expect(ways(page)).toHaveCount(2);
  await screenshotForDocs(page, 'sign-in-ways');

  const first = ways(page).first();
  const firstLabel = (await first.locator('p').first().textContent()) ?? '';
  await first.getByRole('button', { name: /^Remove / }).click();
  await expect(ways(page)).toHaveCount(1);
  await expect(ways(page).filter({ hasText: firstLabel })).toHaveCount(0);
  // The last way in cannot be removed.
  await expect(
    ways(page)
      .first()
      .getByRole('button', { name: /^Remove / }),
  ).toHaveCount(0);
  await expect(page.getByText('This is your only way in')).toBeVisible();

  // The autofill: the login screen's waiting request is answered as soon as the laptop is touched.
  await present(laptop, false);
  await logOut(page);
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
  await present(laptop, true);
  await expect(page).toHaveURL((url) => url.pathname === '/');
  expect((await session(page)).userId).toBe(me.userId);
  await present(laptop, false);
  await logOut(page);

  // The phone again, with the passkey that was removed: refused with a sentence.
  await laptop.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: laptop.id });
  const again = await addAuthenticator(page, { cdp: laptop.cdp, present: false });
  await again.cdp.send('WebAuthn.addCredential', { authenticatorId: again.id, credential: credentials[0]! });
  await signInWithButton(page, again);
  await expect(page.getByTestId('passkey-problem')).toContainText('not registered');
  await expect(page).toHaveURL((url) => url.pathname === '/login');
});

test('passkeys: a replayed sign-in is refused', async ({ page }) => {
  const phone = await addAuthenticator(page);
  await page.goto(localhost('/login'));
  await page.getByRole('button', { name: 'New here? Create an account with a passkey' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await present(phone, false);
  await page.goto(localhost('/login'));

  // The browser's own sign-in goes through; the same signed answer sent again is refused.
  const verify = page.waitForRequest((request) => request.url().endsWith('/api/auth/passkey/login/verify'));
  await signInWithButton(page, phone);
  const body = (await verify).postData() ?? '';
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  const replay = await page.request.post(localhost('/api/auth/passkey/login/verify'), {
    headers: { 'Content-Type': 'application/json', Origin: new URL(localhost('/')).origin },
    data: body,
  });
  expect(replay.status()).toBe(400);
  expect(((await replay.json()) as { message: string }).message).toEqual(expect.any(String));
});
