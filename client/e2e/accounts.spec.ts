import { expect, type Page, test } from '@playwright/test';
import { LIMITS, STORAGE_KEYS } from '../../shared/src/constants';
import { devLogin, freshUsername, toasts } from './helpers';

// Usernames ignore case (one account per name), and a refused username is explained in words for
// people, on a phone-sized screen.
test.use({ viewport: { width: 390, height: 844 } });

const storedUserId = (page: Page) => page.evaluate((key) => localStorage.getItem(key), STORAGE_KEYS.userId);

async function logOut(page: Page) {
  await page.getByTestId('nav-profile').click();
  await page.getByRole('button', { name: 'Log out', exact: true }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/login');
}

test.describe('usernames ignore case', () => {
  test('"Maya_…" and then "maya_…" open the same account, which keeps its name', async ({ page }) => {
    const name = freshUsername('Maya');
    await devLogin(page, name);
    const firstId = await storedUserId(page);
    expect(Number(firstId)).toBeGreaterThan(0);
    await logOut(page);

    await page.getByLabel('Or choose any username').fill(name.toLowerCase());
    await page.getByRole('button', { name: 'Login as Developer' }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/');
    await expect(page.getByTestId('user-display-name')).toHaveText(name);
    expect(await storedUserId(page)).toBe(firstId);
  });
});

test.describe('a refused username', () => {
  test('a name over the limit is explained in words for people, under the field', async ({ page }) => {
    await page.goto('/login');
    const input = page.getByLabel('Or choose any username');
    await input.fill('a'.repeat(LIMITS.usernameMaxLength + 1));
    await page.getByRole('button', { name: 'Login as Developer' }).click();

    const message = `Usernames can be at most ${LIMITS.usernameMaxLength} characters.`;
    const problem = page.getByTestId('dev-login-problem');
    await expect(problem).toHaveText(message);
    await expect(problem).toBeVisible();
    await expect(problem).toHaveAttribute('role', 'alert');
    await expect(input).toHaveAttribute('aria-invalid', 'true');
    await expect(toasts(page).getByText('Login failed', { exact: true })).toBeVisible();
    await expect(page.getByText('Invalid body')).toHaveCount(0);
    await expect(page.getByText(/body\.username/)).toHaveCount(0);
    await expect(page).toHaveURL((url) => url.pathname === '/login');

    // Shortening the name clears the message.
    await input.fill('a'.repeat(LIMITS.usernameMaxLength));
    await expect(problem).toBeHidden();
    await expect(input).not.toHaveAttribute('aria-invalid', 'true');
  });
});
