import { expect, test } from '@playwright/test';
import { devLogin } from './helpers';

test('bottom navigation moves between the three tabs', async ({ page }) => {
  await devLogin(page);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav).toBeVisible();

  const tabs = [
    { id: 'nav-matches', path: '/matches' },
    { id: 'nav-profile', path: '/profile' },
    { id: 'nav-feed', path: '/' },
  ];
  for (const { id, path } of tabs) {
    await page.getByTestId(id).click();
    await expect(page).toHaveURL((url) => url.pathname === path);
    await expect(page.getByTestId(id)).toHaveAttribute('aria-current', 'page');
    for (const other of tabs.filter((tab) => tab.id !== id)) {
      await expect(page.getByTestId(other.id)).not.toHaveAttribute('aria-current', 'page');
    }
  }
});

test('the intent chosen on the profile is saved on the server', async ({ page }) => {
  await devLogin(page);
  await page.getByTestId('nav-profile').click();
  // The feed has an intent switcher too (local only): wait until the profile screen is the one shown.
  await expect(page).toHaveURL((url) => url.pathname === '/profile');
  await expect(page.getByTestId('nav-profile')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('button', { name: 'Log out', exact: true })).toBeVisible();
  const saved = page.waitForResponse(
    (response) => response.request().method() === 'PUT' && /\/api\/users\/\d+$/.test(response.url()),
  );
  await page.getByRole('button', { name: 'Network' }).click();
  expect((await saved).ok()).toBe(true);
  await expect(page.getByRole('button', { name: 'Network' })).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  await expect(page.getByRole('button', { name: 'Network' })).toHaveAttribute('aria-pressed', 'true');
});

test('an unknown path shows the 404 screen and "Go to Feed" works', async ({ page }) => {
  await page.goto('/this/path/does-not-exist');
  await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
  await expect(page.getByText("The page you're looking for doesn't exist or has been moved.")).toBeVisible();
  await page.getByRole('button', { name: 'Go to Feed' }).click();
  // Anonymous: the feed sends us on to /login.
  await expect(page).toHaveURL((url) => url.pathname === '/login');
});

test('"Go to Feed" opens the feed for a signed-in user', async ({ page }) => {
  await devLogin(page);
  await page.goto('/no-such-screen');
  await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
  await page.getByRole('button', { name: 'Go to Feed' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByTestId('nav-feed')).toHaveAttribute('aria-current', 'page');
});

test('profile details with a non-numeric id redirect to /matches', async ({ page }) => {
  await devLogin(page);
  await page.goto('/profile-details/not-a-number');
  await expect(page).toHaveURL((url) => url.pathname === '/matches');
});
