import { expect, type Page, test } from '@playwright/test';
import { STORAGE_KEYS } from '../../shared/src/constants';
import { devLogin, expectMatchMoment, feedButton } from './helpers';

// Popular shows of the demo catalog the e2e database is seeded with; the seeded (demo) people
// listen to them, so a library of three puts people in the feed.
const SHOWS = ['Radiolab', 'The Daily', 'Crime Junkie'];

/** Adds catalog shows to the signed-in user's library through the API, with the app's token. */
async function addShows(page: Page) {
  const { token, userId } = await page.evaluate((keys) => {
    return { token: localStorage.getItem(keys.token), userId: localStorage.getItem(keys.userId) };
  }, STORAGE_KEYS);
  expect(token).toBeTruthy();
  expect(userId).toBeTruthy();
  const headers = { Authorization: `Bearer ${token}` };
  for (const show of SHOWS) {
    const search = await page.request.get(`/api/podcasts/search?q=${encodeURIComponent(show)}`, { headers });
    expect(search.ok()).toBe(true);
    const results = (await search.json()) as Array<{ id: number; name: string }>;
    const hit = results.find((p) => p.name === show) ?? results[0];
    expect(hit, `catalog has ${show}`).toBeTruthy();
    const add = await page.request.post(`/api/users/${userId}/podcasts`, { headers, data: { podcastId: hit?.id } });
    expect([201, 409]).toContain(add.status());
  }
}

/** Drags the feed card by (dx, dy) with the mouse, starting at a point of the card's picture. */
async function dragCard(page: Page, dx: number, dy: number, startAt = { x: 0.5, y: 0.3 }) {
  const box = await page.getByTestId('feed-card').boundingBox();
  if (!box) throw new Error('no feed card');
  const x = box.x + box.width * startAt.x;
  const y = box.y + box.height * startAt.y;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 5 });
  await page.mouse.move(x + dx, y + dy, { steps: 5 });
  await page.mouse.up();
}

/** Reloads the feed until a card shows (the match scores are computed after the library changes). */
async function waitForCards(page: Page) {
  await expect(async () => {
    await page.goto('/');
    await expect(page.getByTestId('feed-card')).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 30_000 });
}

test("feed: a card with name and match %, a like on SPEC's demo user is mutual, drags navigate", async ({ page }) => {
  test.setTimeout(90_000);
  await devLogin(page);
  await addShows(page);
  await waitForCards(page);

  const name = page.getByTestId('feed-name');
  await expect(name).not.toHaveText('');
  await expect(page.getByTestId('feed-percentage')).toHaveText(/^\d{1,3}%$/);

  // SPEC's demo user (Maya, SPEC_DEMO_USERNAME): a like is mutual at once, the toast shows, Matches
  // opens. (Every other demo person answers later: demo-likes.spec.ts.)
  const feed = await page.evaluate(async (keys) => {
    const headers = { Authorization: `Bearer ${localStorage.getItem(keys.token)}` };
    const res = await fetch(`/api/users/${localStorage.getItem(keys.userId)}/feed?intent=romantic`, { headers });
    return (await res.json()) as { displayName: string | null }[];
  }, STORAGE_KEYS);
  const maya = feed.findIndex((item) => item.displayName === 'Maya');
  expect(maya, "SPEC's demo user is in this feed").toBeGreaterThanOrEqual(0);
  for (let i = 0; i < maya; i++) await page.keyboard.press('ArrowUp');
  await expect(name).toHaveText('Maya');
  await (await feedButton(page, 'Like')).click();
  await expect(page).toHaveURL((url) => url.pathname === '/matches');
  await expectMatchMoment(page, 'Maya');

  // Drag left past 150 px: Matches.
  await page.getByTestId('nav-feed').click();
  await expect(page.getByTestId('feed-card')).toBeVisible();
  await dragCard(page, -200, 0, { x: 0.7, y: 0.3 });
  await expect(page).toHaveURL((url) => url.pathname === '/matches');

  // Drag right: Profile.
  await page.getByTestId('nav-feed').click();
  await expect(page.getByTestId('feed-card')).toBeVisible();
  await dragCard(page, 200, 0, { x: 0.2, y: 0.3 });
  await expect(page).toHaveURL((url) => url.pathname === '/profile');

  // Drag up past 80 px: the next card. A fresh load, and the card settled (its entrance done), so the
  // feed's refetch after the like cannot swap the card out from under the gesture.
  await page.goto('/');
  await expect(page.getByTestId('feed-card-motion')).toHaveCSS('opacity', '1');
  const first = await name.textContent();
  await dragCard(page, 0, -150, { x: 0.4, y: 0.5 });
  await expect(name).not.toHaveText(first ?? '');
  await expect(page).toHaveURL((url) => url.pathname === '/');
});
