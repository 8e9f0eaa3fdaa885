import { type Browser, expect, type Page, test } from '@playwright/test';
import { addAuthenticator, session, signInWithButton, withoutAutofill } from './sign-in-helpers';

// A server as a deployment runs it (started by the e2e tier of scripts/test.ts): NODE_ENV=production,
// PUBLIC_URL set (the passkeys' relying party), mail through a real SMTP server, Bluesky through the
// AT Protocol stand-in, no development login. Each person comes from a fresh browser and reaches the feed.
const PRODUCTION = process.env.E2E_PRODUCTION_URL ?? '';
const MESSAGES = process.env.E2E_SMTP_MESSAGES_URL ?? '';
if (!PRODUCTION || !MESSAGES)
  throw new Error('E2E_PRODUCTION_URL and E2E_SMTP_MESSAGES_URL are required (npm test sets them)');

const at = (path: string) => new URL(path, PRODUCTION).href;

/** A fresh browser on the production server. */
async function freshBrowser(browser: Browser) {
  const context = await browser.newContext({ baseURL: PRODUCTION });
  return { context, page: await context.newPage() };
}

/** A new account's setup, done as the wizard would (its own tests are setup.spec.ts): then the feed. */
async function finishSetup(page: Page, name: string) {
  const me = await session(page);
  const res = await page.request.put(at(`/api/users/${me.userId}`), {
    headers: { authorization: `Bearer ${me.token}` },
    data: { displayName: name, setupComplete: true },
  });
  expect(res.ok(), await res.text()).toBe(true);
  await page.goto(at('/'));
  await expect(page.getByTestId('user-display-name')).toHaveText(name);
  await expect(page.getByTestId('nav-feed')).toHaveAttribute('aria-current', 'page');
  return me;
}

test('the login screen offers passkeys, email and Bluesky, and the development login is a 404', async ({ browser }) => {
  const { context, page } = await freshBrowser(browser);
  try {
    const methods = await page.request.get(at('/api/auth/methods'));
    expect(await methods.json()).toEqual({
      passkey: true,
      email: true,
      bluesky: true,
      spotify: false,
      devLogin: false,
    });
    const devLogin = await page.request.post(at('/api/auth/dev-login'), { data: { username: 'anyone' } });
    expect(devLogin.status()).toBe(404);
    expect((await page.request.get(at('/dev/mail'))).status()).toBe(404);
    await page.goto(at('/login'));
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Email me a sign-in code' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Continue with Bluesky' })).toBeVisible();
    await expect(page.getByText('Development mode')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Continue with Spotify' })).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test('production: a passkey signs up, and signs in again from a fresh browser holding it', async ({ browser }) => {
  test.setTimeout(60_000);
  const first = await freshBrowser(browser);
  let credential: unknown;
  let userId = 0;
  try {
    await withoutAutofill(first.page);
    const authenticator = await addAuthenticator(first.page);
    await first.page.goto(at('/login'));
    await first.page.getByRole('button', { name: 'New here? Create an account with a passkey' }).click();
    await expect(first.page).toHaveURL((url) => url.pathname === '/setup');
    userId = (await finishSetup(first.page, 'Prod Passkey')).userId;
    const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
      authenticatorId: authenticator.id,
    });
    credential = credentials[0];
  } finally {
    await first.context.close();
  }

  const second = await freshBrowser(browser);
  try {
    await withoutAutofill(second.page);
    const authenticator = await addAuthenticator(second.page);
    await authenticator.cdp.send('WebAuthn.addCredential', {
      authenticatorId: authenticator.id,
      credential: credential as never,
    });
    await second.page.goto(at('/login'));
    await signInWithButton(second.page);
    await expect(second.page).toHaveURL((url) => url.pathname === '/');
    await expect(second.page.getByTestId('user-display-name')).toHaveText('Prod Passkey');
    expect((await session(second.page)).userId).toBe(userId);
  } finally {
    await second.context.close();
  }
});

test('production: an email code through SMTP signs up and reaches the feed', async ({ browser }) => {
  test.setTimeout(60_000);
  const { context, page } = await freshBrowser(browser);
  try {
    const email = `prod.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
    await page.goto(at('/login'));
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in code' }).click();
    let code = '';
    await expect(async () => {
      const res = await fetch(`${MESSAGES}${encodeURIComponent(email)}`);
      expect(res.status).toBe(200);
      code = ((await res.json()) as { code: string }).code;
    }).toPass({ timeout: 10_000 });
    await page.getByLabel(/Enter the 6-digit code we sent to/).fill(code);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/setup');
    await finishSetup(page, 'Prod Email');
  } finally {
    await context.close();
  }
});

test('production: "Continue with Bluesky" signs up through the AT Protocol server and reaches the feed', async ({
  browser,
}) => {
  test.setTimeout(60_000);
  const handle = `prod-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.test`;
  const signInWithBluesky = async (page: Page) => {
    await page.goto(at('/login'));
    await page.getByRole('button', { name: 'Continue with Bluesky' }).click();
    await page.getByLabel('Your Bluesky handle').fill(handle);
    await page.getByRole('button', { name: 'Continue with Bluesky' }).click();
  };
  const first = await freshBrowser(browser);
  let userId = 0;
  try {
    await signInWithBluesky(first.page);
    await expect(first.page).toHaveURL((url) => url.origin === new URL(PRODUCTION).origin && url.pathname === '/setup');
    userId = (await finishSetup(first.page, 'Prod Sky')).userId;
  } finally {
    await first.context.close();
  }
  // The same DID from another fresh browser opens the same account, straight to the feed.
  const second = await freshBrowser(browser);
  try {
    await signInWithBluesky(second.page);
    await expect(second.page).toHaveURL((url) => url.pathname === '/');
    await expect(second.page.getByTestId('user-display-name')).toHaveText('Prod Sky');
    expect((await session(second.page)).userId).toBe(userId);
  } finally {
    await second.context.close();
  }
});
