// Demo people behave like people (issue 10, items 9-11): a like stays on the feed, the next card
// slides in, and a demo person's later like-back arrives live with its toast; a pass can be undone
// with the button or the keyboard. The e2e launcher sets DEMO_REPLY_DELAY_SECONDS to 1-3.
import { expect, type Page, test } from '@playwright/test';
import { willLikeBack } from '../../shared/src/demo-like-back';
import { addShows, expectMatchMoment, feedButton, type Person, signIn } from './helpers';

// Shows of the seeded catalog that some demo people list; one set per test, used by no other spec.
const LIKE_SHOWS = ['the rewatchables', '99% invisible', 'switched on pop'];
const UNDO_SHOWS = ['the rest is football', 'the rest is history', 'red handed'];

interface Item {
  id: number;
  displayName: string | null;
  matchPercentage: number;
}

/** The feed as the server lists it (the order the screen shows it in). */
async function feedOf(person: Person): Promise<Item[]> {
  const res = await person.page.request.get(`/api/users/${person.id}/feed?intent=romantic`, {
    headers: { authorization: `Bearer ${person.token}` },
  });
  expect(res.ok()).toBe(true);
  return (await res.json()) as Item[];
}

/** Reloads the feed until a card shows (match scores are computed after the library changes). */
async function waitForCards(page: Page) {
  await expect(async () => {
    await page.goto('/');
    await expect(page.getByTestId('feed-card')).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 30_000 });
}

const nameOnCard = (page: Page) => page.getByTestId('feed-name');

test.use({ viewport: { width: 390, height: 844 } });

test('a like stays on the feed; the demo person likes back later, live, with the toast', async ({ page }) => {
  test.setTimeout(90_000);
  const me = await signIn(page, 'demolike');
  await addShows(me, LIKE_SHOWS);
  await waitForCards(page);

  // A demo person (not SPEC's instant one) whose draw says yes, with some margin on the match %.
  const feed = await feedOf(me);
  const at = feed.findIndex(
    (item) => item.displayName !== 'Maya' && willLikeBack(item.id, me.id, 'romantic', item.matchPercentage - 5),
  );
  expect(at, 'someone in the feed likes back').toBeGreaterThanOrEqual(0);
  const target = feed[at] as Item;
  await page.goto('/');
  await expect(page.getByTestId('feed-card')).toBeVisible();
  for (let i = 0; i < at; i++) {
    const before = await nameOnCard(page).textContent();
    await page.keyboard.press('ArrowUp');
    await expect(nameOnCard(page)).not.toHaveText(before ?? '');
  }
  await expect(page.getByTestId('feed-card')).toHaveAttribute(
    'aria-label',
    new RegExp(`, ${target.matchPercentage}% match$`),
  );
  const liked = (await nameOnCard(page).textContent()) ?? '';

  await (await feedButton(page, 'Like')).click();
  await expect(page.getByTestId('like-feedback')).toContainText(`You liked ${liked}`);
  // No jump to Matches: the next card (or the empty feed) shows instead.
  await expect(nameOnCard(page).filter({ hasText: liked })).toHaveCount(0);
  expect(new URL(page.url()).pathname).toBe('/');

  // The like-back arrives over the socket while the person is still browsing the feed.
  await expectMatchMoment(page, liked, { timeout: 20_000 });
  expect(new URL(page.url()).pathname).toBe('/');

  await page.getByTestId('nav-matches').click();
  await expect(page.getByTestId('match-card').filter({ hasText: liked })).toBeVisible();
});

test('a pass can be undone with the button and with Z: the person is back, also on the server', async ({ page }) => {
  test.setTimeout(90_000);
  const me = await signIn(page, 'undo');
  await addShows(me, UNDO_SHOWS);
  await waitForCards(page);
  const first = (await nameOnCard(page).textContent()) ?? '';
  // The person on the card, by name: a recompute may have reordered the server's list since it loaded.
  const firstId = (await feedOf(me)).find((i) => i.displayName === first)?.id;
  expect(firstId, `${first} in the server's feed`).toBeTruthy();

  // The button.
  await (await feedButton(page, 'Pass')).click();
  await expect(nameOnCard(page).filter({ hasText: first })).toHaveCount(0);
  await expect(page.getByTestId('undo-pass')).toContainText(`Passed ${first}`);
  expect((await feedOf(me)).map((i) => i.id)).not.toContain(firstId);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(nameOnCard(page)).toHaveText(first);
  await expect(page.getByTestId('undo-pass')).toHaveCount(0);
  // The card comes back at once; the server's undo may still be on its way.
  const onServer = async () => (await feedOf(me)).map((i) => i.id);
  await expect.poll(onServer).toContain(firstId);

  // The keyboard: P passes, Z takes it back; the hint lists it.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Tab');
  await expect(page.getByTestId('keyboard-hint')).toContainText('undo');
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('p');
  await expect(nameOnCard(page).filter({ hasText: first })).toHaveCount(0);
  await page.keyboard.press('z');
  await expect(nameOnCard(page)).toHaveText(first);

  // Erased on the server: after a reload the person is still in the feed.
  await expect.poll(onServer).toContain(firstId);
  await page.reload();
  await expect(page.getByTestId('feed-card')).toBeVisible();
});
