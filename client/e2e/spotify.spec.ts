import { expect, test } from '@playwright/test';
import { STORAGE_KEYS } from '../../shared/src/constants';
import { devLogin, toasts } from './helpers';

// Runs against the Spotify stand-in that the e2e tier starts (scripts/spotify-stand-in.ts): each
// consent signs in as a new listener whose library holds these three shows.
const SHOWS = ['The Stand-In Hour', 'Paging Through History', 'Refresh Token Talk'];

test.describe('Spotify', () => {
  test('connect on the profile, the sync runs, the podcasts are listed; refresh and disconnect', async ({ page }) => {
    await devLogin(page);
    await page.getByTestId('nav-profile').click();
    await expect(page).toHaveURL((url) => url.pathname === '/profile');
    const card = page.getByTestId('spotify-card');
    await expect(card.getByTestId('spotify-state')).toHaveText('Not connected');

    await card.getByRole('button', { name: 'Connect Spotify' }).click();
    // Through /api/spotify/login, the stand-in's consent page and the callback, back to the profile.
    await expect(page).toHaveURL((url) => url.pathname === '/profile' && !url.searchParams.has('spotify_connect'));
    await expect(toasts(page).getByText('Spotify Connected')).toBeVisible();
    const list = card.getByTestId('spotify-podcasts');
    for (const name of SHOWS) await expect(list.getByText(name)).toBeVisible({ timeout: 20_000 });
    await expect(card.getByText('3 podcasts from Spotify')).toBeVisible();
    await expect(card.getByTestId('spotify-state')).toContainText(/Connected as standin_listener_\d+ · Last sync/);

    await card.getByRole('button', { name: 'Refresh' }).click();
    await expect(toasts(page).getByText('Spotify Refreshed')).toBeVisible({ timeout: 20_000 });
    await expect(toasts(page).getByText('Your podcast data has been updated.')).toBeVisible();

    await card.getByRole('button', { name: 'Disconnect' }).click();
    await expect(card.getByTestId('spotify-state')).toHaveText('Not connected');
    await expect(card.getByRole('button', { name: 'Connect Spotify' })).toBeVisible();
  });

  test('"Continue with Spotify" signs in (creating the account), sets up, and opens the feed', async ({ page }) => {
    await page.goto('/login');
    await page.getByRole('button', { name: 'Continue with Spotify' }).click();
    // A new account starts in the setup wizard; the one-time code is gone from the address bar.
    await expect(page).toHaveURL((url) => url.pathname === '/setup' && url.search === '');
    await expect(page.getByRole('heading', { level: 2, name: 'Choose Intent' })).toBeVisible();
    // The session survives a reload; the account carries the Spotify display name.
    await page.reload();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByLabel('Display name')).toHaveValue(/^Stand-In Listener \d+$/);
    // Set up through the API (the wizard itself has its own spec), then the feed opens.
    const session = await page.evaluate(
      (keys) => ({ token: localStorage.getItem(keys.token), userId: localStorage.getItem(keys.userId) }),
      STORAGE_KEYS,
    );
    const done = await page.request.put(`/api/users/${session.userId}`, {
      headers: { authorization: `Bearer ${session.token}` },
      data: { setupComplete: true },
    });
    expect(done.ok(), await done.text()).toBe(true);
    await page.goto('/');
    await expect(page.getByTestId('user-display-name')).toHaveText(/^Stand-In Listener \d+$/);
    await page.getByTestId('nav-profile').click();
    const list = page.getByTestId('spotify-card').getByTestId('spotify-podcasts');
    for (const name of SHOWS) await expect(list.getByText(name)).toBeVisible({ timeout: 20_000 });
  });
});
