import { expect, type Page, test } from '@playwright/test';
import { screenshotForDocs, toasts, updateUser } from './helpers';
import { addAuthenticator, session, signInWithButton, withoutAutofill } from './sign-in-helpers';

// Sign-in for everyone (docs/auth.md) in Chromium. Passkeys use a virtual authenticator (the Chrome
// DevTools Protocol's WebAuthn domain) and need a host name, not an IP (WebAuthn refuses IP
// relying parties): these tests browse the stack at localhost.

/** The stack's URL on localhost. */
function localhost(path: string): string {
  const base = new URL(test.info().project.use.baseURL ?? '');
  base.hostname = 'localhost';
  return new URL(path, base).href;
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
  await withoutAutofill(page);
  const phone = await addAuthenticator(page);
  await page.goto(localhost('/login'));
  await expect(page.getByRole('button', { name: 'Email me a sign-in code' })).toBeVisible();
  await screenshotForDocs(page, 'login');
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
  await logOut(page);

  await signInWithButton(page);
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

  await logOut(page);
  await signInWithButton(page);
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await logOut(page);

  // The autofill, in another browser holding the laptop's passkey: the email field's passkey
  // suggestion signs in without any button.
  const { credentials: laptopKeys } = await laptop.cdp.send('WebAuthn.getCredentials', { authenticatorId: laptop.id });
  const other = await page.context().browser()?.newContext();
  if (!other) throw new Error('no browser');
  try {
    const otherPage = await other.newPage();
    const otherLaptop = await addAuthenticator(otherPage);
    await otherLaptop.cdp.send('WebAuthn.addCredential', {
      authenticatorId: otherLaptop.id,
      credential: laptopKeys[0]!,
    });
    await otherPage.goto(localhost('/login'));
    await expect(otherPage).toHaveURL((url) => url.pathname === '/');
    expect((await session(otherPage)).userId).toBe(me.userId);
  } finally {
    await other.close();
  }

  // The phone again, with the passkey that was removed: refused with a sentence.
  await laptop.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: laptop.id });
  const again = await addAuthenticator(page, { cdp: laptop.cdp });
  await again.cdp.send('WebAuthn.addCredential', { authenticatorId: again.id, credential: credentials[0]! });
  await signInWithButton(page);
  await expect(page.getByTestId('passkey-problem')).toContainText('not registered');
  await expect(page).toHaveURL((url) => url.pathname === '/login');
});

test('passkeys: a replayed sign-in is refused', async ({ page }) => {
  await withoutAutofill(page);
  await addAuthenticator(page);
  await page.goto(localhost('/login'));
  await page.getByRole('button', { name: 'New here? Create an account with a passkey' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await page.goto(localhost('/login'));

  // The browser's own sign-in goes through; the same signed answer sent again is refused.
  const verify = page.waitForRequest((request) => request.url().endsWith('/api/auth/passkey/login/verify'));
  await signInWithButton(page);
  const body = (await verify).postData() ?? '';
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  const replay = await page.request.post(localhost('/api/auth/passkey/login/verify'), {
    headers: { 'Content-Type': 'application/json', Origin: new URL(localhost('/')).origin },
    data: body,
  });
  expect(replay.status()).toBe(400);
  expect(((await replay.json()) as { message: string }).message).toEqual(expect.any(String));
});

/** The code of the newest message to `email` in the development mailbox (GET /api/dev/mail/latest). */
async function codeSentTo(page: Page, email: string): Promise<string> {
  let code = '';
  await expect(async () => {
    const res = await page.request.get(`/api/dev/mail/latest?to=${encodeURIComponent(email)}`);
    expect(res.status()).toBe(200);
    code = ((await res.json()) as { code: string }).code;
  }).toPass({ timeout: 10_000 });
  return code;
}

test('email: a new address signs up by code, then signs in again by a new code to the same account', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const email = `e2e.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
  const codeField = page.getByLabel(/Enter the 6-digit code we sent to/);
  await expect(codeField).toBeVisible();
  expect(await codeField.evaluate((field) => field === document.activeElement)).toBe(true);
  // A wrong code first: a sentence under the field, still on the login screen.
  const code = await codeSentTo(page, email);
  await codeField.fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByTestId('email-sign-in-problem')).toContainText('tries left');
  await codeField.fill(code);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  // A new account sets up first.
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  const me = await session(page);
  await updateUser({ page, name: 'Email Person', id: me.userId, token: me.token }, { setupComplete: true });

  await page.goto('/profile');
  await expect(ways(page).filter({ hasText: email })).toHaveCount(1);
  await logOut(page);
  await page.getByLabel('Email').fill(email.toUpperCase());
  await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
  await expect(page.getByLabel(/Enter the 6-digit code we sent to/)).toBeVisible();
  const second = await codeSentTo(page, email);
  expect(second).not.toBe(code);
  await page.getByLabel(/Enter the 6-digit code we sent to/).fill(second);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  expect((await session(page)).userId).toBe(me.userId);
  await screenshotForDocs(page, 'signed-in-by-email');
});

test('Bluesky: "Continue with Bluesky" makes an account with the verified handle, and opens it again', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const handle = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}.test`;
  const signInWithBluesky = async () => {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Continue with Bluesky' }).click();
    await page.getByLabel('Your Bluesky handle').fill(`@${handle}`);
    await page.getByRole('button', { name: 'Continue with Bluesky' }).click();
  };
  await signInWithBluesky();
  // Through the stand-in's authorization server and back: a new account sets up first.
  await expect(page).toHaveURL((url) => url.pathname === '/setup');
  const me = await session(page);
  await updateUser({ page, name: 'Sky Person', id: me.userId, token: me.token }, { setupComplete: true });
  await page.goto('/profile');
  await expect(page.getByTestId('bluesky-card').getByTestId('bluesky-state')).toHaveText(`Linked as @${handle}`);
  await expect(ways(page).filter({ hasText: `@${handle}` })).toHaveCount(1);
  await logOut(page);

  await signInWithBluesky();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  expect((await session(page)).userId).toBe(me.userId);
});
