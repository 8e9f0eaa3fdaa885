import { expect, type Locator, type Page, test } from '@playwright/test';
import { feedButton, like, matchIdOf, twoPeople } from './helpers';

// Issue 24, point 9 (WCAG 1.4.4): pinch-zoom is allowed, and at 200 % text size every screen still
// works on a 390x844 phone: nothing scrolls sideways, and each main control can be reached and is
// not covered by anything (the fixed action column, the bottom bar).

test.use({ viewport: { width: 390, height: 844 } });

/** Text at 200 %, as a browser's text-size setting does it: the root font size (the app sizes text in rem). */
async function largeText(page: Page) {
  await page.addInitScript(() => {
    document.addEventListener('DOMContentLoaded', () => {
      document.documentElement.style.fontSize = '200%';
    });
  });
}

async function expectNoSidewaysScroll(page: Page, screen: string) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${screen} scrolls sideways at 200 % text`).toBeLessThanOrEqual(0);
}

/** The control can be scrolled into view and, there, nothing else is on top of its middle. */
async function expectUsable(control: Locator, what: string) {
  await control.scrollIntoViewIfNeeded();
  await expect(control, what).toBeVisible();
  const onTop = await control.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
  expect(onTop, `${what} is not covered`).toBe(true);
}

test('the viewport allows pinch-zoom', async ({ page }) => {
  await page.goto('/login');
  const content = await page.locator('meta[name="viewport"]').getAttribute('content');
  expect(content).not.toMatch(/user-scalable\s*=\s*no|maximum-scale/);
});

test('at 200 % text the login, feed, profile, matches and chat still work', async ({ page, browser }) => {
  test.setTimeout(90_000);
  let closeOther = async () => {};
  try {
    await largeText(page);
    await page.goto('/login');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('32px');
    await expectNoSidewaysScroll(page, 'login');
    await expectUsable(page.getByRole('button', { name: 'Login as Developer' }), 'Login as Developer');

    const { a, b, close } = await twoPeople(page, browser, 'zooma', 'zoomb');
    closeOther = close;
    await page.reload();
    await expect(page.getByTestId('feed-card')).toBeVisible();
    await expectNoSidewaysScroll(page, 'feed');
    const likeButton = await feedButton(page, 'Like');
    await expectUsable(likeButton, 'Like');
    await expectUsable(page.getByRole('button', { name: 'Pass', exact: true }), 'Pass');
    await expectUsable(page.getByTestId('nav-matches'), 'the Matches tab');

    await page.getByTestId('nav-profile').click();
    await expect(page).toHaveURL((url) => url.pathname === '/profile');
    await expectNoSidewaysScroll(page, 'profile');
    await expectUsable(
      page.getByRole('region', { name: 'Profile information' }).getByRole('button', { name: 'Save' }),
      'Save',
    );

    await like(page.request, a, b);
    await like(b.page.request, b, a);
    const matchId = await matchIdOf(a, b);
    await page.goto('/matches');
    await expect(page.getByTestId('match-card').first()).toBeVisible();
    await expectNoSidewaysScroll(page, 'matches');
    await expectUsable(page.getByRole('button', { name: `Message ${b.name}` }), 'Message');

    await page.goto(`/chat/${matchId}`);
    const input = page.getByRole('textbox', { name: 'Message', exact: true });
    await expectNoSidewaysScroll(page, 'chat');
    await expectUsable(input, 'the message input');
    await input.fill('Big text, still works');
    await input.press('Enter');
    await expect(page.getByTestId('message').filter({ hasText: 'Big text, still works' })).toBeVisible();
  } finally {
    await closeOther();
  }
});
