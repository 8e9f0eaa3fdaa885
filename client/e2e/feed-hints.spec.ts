import { expect, test } from '@playwright/test';
import { addShows, signIn } from './helpers';

// Issue 10, item 11 (part): the shared-show count and the shortcuts for sighted keyboard users.
test.use({ viewport: { width: 390, height: 844 } });

// Shows of the seeded catalog no other spec uses, so these people never top another test's feed.
const SHOWS = ['my favorite murder', 'planet money', 'this american life'];

test('"Why you match" counts the shared shows, and keyboard users see the shortcuts', async ({ page }) => {
  test.setTimeout(90_000);
  const me = await signIn(page, 'hints');
  await addShows(me, SHOWS);
  await expect(async () => {
    await page.goto('/');
    await expect(page.getByTestId('feed-card')).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 45_000 });

  const summary = page.getByText(/^Why you match · \d+ shared shows?$/);
  await expect(summary).toBeVisible();
  const count = Number((await summary.textContent())?.match(/(\d+) shared/)?.[1]);
  await summary.click();
  const chips = page.getByRole('list', { name: 'Shared shows' }).getByRole('listitem');
  await expect(chips).toHaveCount(count);
  for (const chip of await chips.all()) await expect(chip).toBeInViewport();

  await expect(page.getByTestId('keyboard-hint')).toHaveCount(0);
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('keyboard-hint')).toBeVisible();
  await expect(page.getByTestId('keyboard-hint')).toContainText('like');
});
