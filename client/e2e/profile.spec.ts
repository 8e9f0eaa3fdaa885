import fs from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { expectAccessible, expectTapTargets } from './a11y';
import { authHeaders, like, type Person, shareAShow, signInSetUp, toasts, updateUser } from './helpers';

// Issue 11: the own profile (SPEC section 2, "Own profile"): profile information, picture upload
// with a real progress bar, the listening quiz, and the person's own data (download and delete).

const VIEWPORT = { width: 390, height: 844 };
test.use({ viewport: VIEWPORT });

// A valid 1x1 PNG (the server re-encodes it into its picture sizes).
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A set-up person with a human-readable display name (axe checks names against visible text). */
async function person(page: Page, prefix: string, displayName: string): Promise<Person> {
  const me = await signInSetUp(page, prefix);
  await updateUser(me, { displayName });
  return me;
}

async function openProfile(page: Page, displayName: string) {
  await page.goto('/profile');
  await expect(page).toHaveURL((url) => url.pathname === '/profile');
  await expect(page.getByTestId('user-display-name')).toHaveText(displayName);
}

function avatar(page: Page) {
  return page.getByTestId('profile-screen').locator('header img').first();
}

test('profile information is saved and still there after a reload; the screen is accessible', async ({ page }) => {
  await person(page, 'profinfo', 'Sam Profile');
  await openProfile(page, 'Sam Profile');
  await expect(page.getByTestId('profile-tagline')).toHaveText('No dating tagline set');
  await expect(page.getByTestId('video-intro-card').getByRole('tab', { name: 'AI video' })).toBeVisible();
  await expectAccessible(page, '/profile');
  await expectTapTargets(page, '/profile');

  const card = page.getByTestId('profile-info-card');
  // The display name is required: nothing is sent without one.
  await card.getByLabel('Display name').fill('   ');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByText('Display name is required')).toBeVisible();
  await expectAccessible(page, '/profile with a validation error');

  await card.getByLabel('Display name').fill('Robin Tester');
  await card.getByLabel('Dating tagline').fill('Long walks and longer true-crime series');
  await card.getByLabel('Social tagline').fill('Board games and history pods');
  await card.getByRole('spinbutton', { name: 'Minimum match %' }).fill('35');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(toasts(page).getByText('Profile Updated')).toBeVisible();
  await expect(page.getByTestId('user-display-name')).toHaveText('Robin Tester');

  await page.reload();
  await expect(page.getByTestId('user-display-name')).toHaveText('Robin Tester');
  await expect(page.getByTestId('profile-tagline')).toHaveText('Long walks and longer true-crime series');
  const reloaded = page.getByTestId('profile-info-card');
  await expect(reloaded.getByLabel('Social tagline')).toHaveValue('Board games and history pods');
  await expect(reloaded.getByLabel('Network tagline')).toHaveValue('');
  await expect(reloaded.getByRole('spinbutton', { name: 'Minimum match %' })).toHaveValue('35');

  // The header follows the intent: Network has no tagline yet, so its fallback shows.
  await page.getByRole('button', { name: 'Network' }).click();
  await expect(page.getByTestId('profile-tagline')).toHaveText('No professional tagline set');
  await page.getByRole('button', { name: 'Social' }).click();
  await expect(page.getByTestId('profile-tagline')).toHaveText('Board games and history pods');
  // No horizontal scroll at the narrowest supported width.
  await page.setViewportSize({ width: 320, height: 700 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('a picture uploads with a progress bar to 100 and replaces the avatar; a text file is refused', async ({
  page,
}) => {
  const me = await person(page, 'profpic', 'Casey Picture');
  await openProfile(page, 'Casey Picture');
  const before = await avatar(page).getAttribute('src');

  await page.getByRole('button', { name: 'Change profile picture' }).click();
  const dialog = page.getByRole('dialog', { name: 'Profile picture' });
  await expect(dialog.getByRole('button', { name: 'Choose a photo' })).toBeVisible();
  await expectAccessible(page, 'picture dialog');
  await expectTapTargets(dialog, 'picture dialog');

  // Refused in the browser, before any request.
  let uploads = 0;
  page.on('request', (request) => {
    if (request.url().endsWith(`/api/users/${me.id}/profile-picture`)) uploads += 1;
  });
  const notText = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Choose a photo' }).click();
  await (await notText).setFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await expect(toasts(page).getByText('Invalid file type')).toBeVisible();
  await expect(dialog.getByText('Please select an image file (JPEG, PNG, etc.)')).toBeVisible();
  expect(uploads).toBe(0);

  const chooser = page.waitForEvent('filechooser');
  await dialog.getByRole('button', { name: 'Choose a photo' }).click();
  await (await chooser).setFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG_1X1 });
  const bar = dialog.getByRole('progressbar', { name: 'Upload progress' });
  await expect(bar).toHaveAttribute('aria-valuenow', '100');
  await expect(dialog.getByText('Upload complete')).toBeVisible();
  expect(uploads).toBe(1);

  const stored = await page.request.get(`/api/users/${me.id}`, { headers: authHeaders(me) });
  const { profilePicture } = (await stored.json()) as { profilePicture: string };
  expect(profilePicture).toMatch(/^\/media\//);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(avatar(page)).toHaveAttribute('src', profilePicture);
  expect(profilePicture).not.toBe(before);
  await page.reload();
  await expect(avatar(page)).toHaveAttribute('src', profilePicture);
});

test('the listening quiz saves each answer and shows its real completion', async ({ page }) => {
  const me = await person(page, 'profquiz', 'Quinn Quiz');
  await openProfile(page, 'Quinn Quiz');
  const quiz = page.getByTestId('quiz-card');
  await expect(page.getByTestId('quiz-completion')).toHaveText('0% complete');
  await quiz.getByText('On my commute').click();
  await expect(page.getByTestId('quiz-completion')).toHaveText('20% complete');
  await quiz.getByText('2x or faster').click();
  await quiz.getByText('The really good ones').click();
  await expect(page.getByTestId('quiz-completion')).toHaveText('60% complete');
  await expect(quiz.getByRole('progressbar', { name: 'Quiz completion' })).toHaveAttribute('aria-valuenow', '60');
  // The screen shows answers at once; the saves go out one after another. Reload once all three are stored.
  await expect
    .poll(async () => {
      const res = await page.request.get(`/api/users/${me.id}`, { headers: authHeaders(me) });
      return Object.keys(((await res.json()) as { quizAnswers: object }).quizAnswers).length;
    })
    .toBe(3);

  await page.reload();
  await expect(page.getByTestId('quiz-completion')).toHaveText('60% complete');
  await expect(quiz.getByRole('radio', { name: '2x or faster' })).toBeChecked();
  await expect(quiz.getByRole('radio', { name: 'On my commute' })).toBeChecked();
});

test("'Download my data' saves a JSON file with the person's data", async ({ page }) => {
  const me = await person(page, 'profdata', 'Dana Data');
  await openProfile(page, 'Dana Data');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download my data' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^podmatch-data-.+\.json$/);
  const filePath = await file.path();
  const data = JSON.parse(fs.readFileSync(filePath, 'utf8')) as { account: { username: string; id: number } };
  expect(data.account.username).toBe(me.name);
  expect(data.account.id).toBe(me.id);
});

test("deleting the account removes the match from the other person's open Matches screen", async ({ browser }) => {
  test.setTimeout(60_000);
  const contextA = await browser.newContext({ viewport: VIEWPORT });
  const contextB = await browser.newContext({ viewport: VIEWPORT });
  try {
    const a = await person(await contextA.newPage(), 'profdelA', 'Alex Leaving');
    const b = await person(await contextB.newPage(), 'profdelB', 'Blair Staying');
    await shareAShow(a, b);
    await like(b.page.request, b, a);
    await like(a.page.request, a, b);

    await b.page.goto('/matches');
    const card = b.page.getByTestId('match-card').filter({ hasText: 'Alex Leaving' });
    await expect(card).toBeVisible();

    await openProfile(a.page, 'Alex Leaving');
    await a.page.getByRole('button', { name: 'Delete account' }).click();
    const dialog = a.page.getByRole('dialog', { name: 'Delete your account?' });
    const confirm = dialog.getByRole('button', { name: 'Delete account' });
    await expect(confirm).toBeDisabled();
    await expectAccessible(a.page, 'delete account dialog');
    await expectTapTargets(dialog, 'delete account dialog');
    await dialog.getByLabel('Type DELETE to confirm').fill('DELETE');
    await confirm.click();

    await expect(a.page).toHaveURL((url) => url.pathname === '/login');
    await expect(toasts(a.page).getByText('Account deleted')).toBeVisible();
    // B's open Matches screen loses the card live, without a reload.
    await expect(card).toHaveCount(0);
    await expect(b.page.getByText('No matches yet')).toBeVisible();

    // The account is gone: the old token no longer works, and the username signs up afresh.
    const old = await a.page.request.get(`/api/users/${a.id}`, { headers: authHeaders(a) });
    expect(old.status()).toBe(401);
    const again = await a.page.request.post('/api/auth/dev-login', { data: { username: a.name } });
    expect(again.ok()).toBe(true);
    const fresh = (await again.json()) as { user: { id: number; displayName: string } };
    expect(fresh.user.id).not.toBe(a.id);
  } finally {
    await contextA.close();
    await contextB.close();
  }
});
