import { type Browser, expect, type Locator, type Page, test } from '@playwright/test';
import { expectAccessible, expectTapTargets, type ScanOptions } from './a11y';
import { addShows, authHeaders, importOpmlTitles, like, signIn, updateUser } from './helpers';

// Issue 10, item 12: every screen and state a person can reach passes axe (WCAG 2.2 A and AA; only
// `meta-viewport` is off, see docs/accessibility.md), and every control is at least 44x44 px.

const VIEWPORT = { width: 390, height: 844 };
// This spec's own show set: its people do not turn up in other specs' feeds (nor theirs here).
const SHOWS = ["conan o'brien needs a friend", 'up first', 'this past weekend'];
const LONG_TITLE =
  'The Extraordinarily Long-Winded Weekly Conversation About Absolutely Everything That Happened Under The Sun';

/** Scans the page with axe and checks its tap targets. */
async function expectScreenAccessible(page: Page, label: string, options: ScanOptions = {}) {
  await expectAccessible(page, label, options);
  await expectTapTargets(page, label, options);
}

/** Opens each path, waits for what shows it is ready, and scans it. */
async function visitEach(page: Page, screens: [path: string, ready: Locator][]) {
  for (const [path, ready] of screens) {
    await page.goto(path);
    await expect(ready).toBeVisible();
    await expectScreenAccessible(page, path);
  }
}

/** Me and a partner with the same shows and a mutual (romantic) match; the match id. */
async function matchedPair(browser: Browser) {
  const contexts = [await browser.newContext({ viewport: VIEWPORT }), await browser.newContext({ viewport: VIEWPORT })];
  const me = await signIn(await contexts[0]!.newPage(), 'a11yme');
  const partner = await signIn(await contexts[1]!.newPage(), 'a11ypartner');
  // Names as people write them: axe checks that accessible names contain the visible text only for
  // human-readable text, which generated usernames are not.
  await updateUser(me, { displayName: 'Sam Listener' });
  await updateUser(partner, { displayName: 'Robin Example' });
  partner.name = 'Robin Example';
  await addShows(me, SHOWS);
  await addShows(partner, SHOWS);
  await like(partner.page.request, partner, me);
  await like(me.page.request, me, partner);
  const list = await me.page.request.get(`/api/users/${me.id}/matches?intent=romantic`, { headers: authHeaders(me) });
  const matches = (await list.json()) as { id: number; matchedUser: { id: number } }[];
  const matchId = matches.find((m) => m.matchedUser.id === partner.id)?.id;
  expect(matchId, 'the mutual match').toBeTruthy();
  return { me, partner, matchId: matchId ?? 0, close: () => Promise.all(contexts.map((c) => c.close())) };
}

test.use({ viewport: VIEWPORT });

test('public screens: login (with a validation error and a toast), terms, privacy, 404', async ({ page }) => {
  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Login as Developer' })).toBeVisible();
  await expectScreenAccessible(page, '/login');

  await page.getByRole('button', { name: 'Login as Developer' }).click();
  await expect(page.getByTestId('dev-login-problem')).toBeVisible();
  await expect(page.getByRole('region', { name: /Notifications/ }).getByText('Username required')).toBeVisible();
  await expectScreenAccessible(page, '/login with a validation error and its toast');

  await page.goto('/login?error=whatever');
  await expect(page.getByRole('region', { name: /Notifications/ }).getByText('Login Error')).toBeVisible();
  await expectScreenAccessible(page, '/login with an error toast');

  await visitEach(page, [
    ['/terms', page.getByRole('heading', { name: 'Terms of Service', level: 1 })],
    ['/privacy', page.getByRole('heading', { name: 'Privacy Policy', level: 1 })],
    ['/no-such-screen', page.getByRole('heading', { name: '404 Page Not Found' })],
  ]);
});

test('signed-in screens: feed, empty feed, profile, matches and its dialogs, chat, details, setup', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const { me, partner, matchId, close } = await matchedPair(browser);
  const { page } = me;
  try {
    // The feed with a card (the partner and demo people who share the shows), the coach mark first.
    await expect(async () => {
      await page.goto('/');
      await expect(page.getByTestId('feed-card')).toBeVisible({ timeout: 3000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.getByTestId('feed-percentage')).toHaveText(/^\d{1,3}%$/);
    const coach = page.getByTestId('feed-coach-mark');
    if (await coach.isVisible()) {
      await expectScreenAccessible(page, 'feed with the coach mark');
      await coach.getByRole('button').click();
      await expect(coach).toHaveCount(0);
    }
    await expectScreenAccessible(page, 'feed with a card');
    const why = page.getByText(/^Why you match/);
    await why.click();
    await expect(page.getByRole('list', { name: 'Shared shows' })).toBeVisible();
    await expectScreenAccessible(page, "feed with 'Why you match' open");
    // Keyboard users see the shortcuts.
    await page.keyboard.press('Tab');
    await expectScreenAccessible(page, 'feed with the keyboard shortcuts shown');

    // The empty feed and its minimum match control.
    await updateUser(me, { matchPreferences: { minMatchPercentage: 100 } });
    await page.reload();
    await expect(page.getByText('Well, this is awkward.')).toBeVisible();
    await expectScreenAccessible(page, 'empty feed');
    await page.getByRole('button', { name: 'Adjust minimum match' }).click();
    await expect(page.getByLabel('Minimum match percentage')).toBeVisible();
    await expectScreenAccessible(page, 'empty feed with the minimum match control');
    await updateUser(me, { matchPreferences: { minMatchPercentage: 0 } });

    // My Profile: a long title in the library, then search results with Add and Added.
    await importOpmlTitles(me, [LONG_TITLE], 'a11y');
    await page.goto('/profile');
    const library = page.getByTestId('podcast-library');
    await expect(library.getByTestId('library-entry').filter({ hasText: LONG_TITLE })).toHaveCount(1);
    await expectScreenAccessible(page, '/profile');
    await library.getByRole('searchbox', { name: 'Add podcasts' }).fill('up first');
    const results = library.getByRole('list', { name: 'Search results' });
    await expect(results.getByTestId('search-result').first()).toBeVisible();
    await expectScreenAccessible(page, '/profile with search results (Added)');
    await library.getByRole('searchbox', { name: 'Add podcasts' }).fill('a');
    await expect(results.getByTestId('search-result').first()).toBeVisible();
    await expectScreenAccessible(page, '/profile with search results (Add)');
    await library
      .getByTestId('library-entry')
      .filter({ hasText: LONG_TITLE })
      .getByRole('button', { name: /^Remove / })
      .click();
    await expect(library.getByRole('group', { name: /^Confirm removing / })).toBeVisible();
    await expectScreenAccessible(page, '/profile confirming a removal');

    // Matches, its options dialog and each of its steps.
    await page.goto('/matches');
    await expect(page.getByTestId('match-card').first()).toBeVisible();
    await expectScreenAccessible(page, '/matches');
    await page.getByRole('button', { name: new RegExp(`More options for ${partner.name}`) }).click();
    const options = page.getByRole('dialog', { name: `Options for ${partner.name}` });
    await expect(options).toBeVisible();
    await expectScreenAccessible(page, '/matches options dialog');
    for (const step of ['Unmatch', 'Block', 'Report'] as const) {
      await page.getByRole('dialog').getByRole('button', { name: step, exact: true }).click();
      await expect(page.getByRole('dialog', { name: new RegExp(`^${step} `) })).toBeVisible();
      if (step === 'Report') {
        await page.getByRole('radio', { name: 'Spam' }).check();
        await page.getByRole('textbox', { name: /Details/ }).fill('Sends the same message to everyone.');
      }
      await expectScreenAccessible(page, `/matches ${step} step`);
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      if (step !== 'Report') {
        await page.getByRole('button', { name: new RegExp(`More options for ${partner.name}`) }).click();
      }
    }

    // Chat: the empty conversation, then with messages on both sides.
    await page.goto(`/chat/${matchId}`);
    await expect(page.getByTestId('chat-name')).toBeVisible();
    await expectScreenAccessible(page, '/chat empty');
    const input = page.getByRole('textbox').last();
    await input.fill('Hello from the accessibility test');
    await input.press('Enter');
    await partner.page.goto(`/chat/${matchId}`);
    const partnerInput = partner.page.getByRole('textbox').last();
    await partnerInput.fill('Hi! Loved the last episode.');
    await partnerInput.press('Enter');
    await expect(page.getByTestId('message')).toHaveCount(2);
    await expectScreenAccessible(page, '/chat with messages');

    await visitEach(page, [
      ['/chat/999999999', page.getByText('Conversation not found')],
      [`/profile-details/${partner.id}/${matchId}`, page.getByRole('heading', { name: 'Profile', level: 1 })],
      ['/setup', page.getByRole('heading', { name: 'Set up your profile' })],
      ['/no-such-screen', page.getByRole('heading', { name: '404 Page Not Found' })],
    ]);
  } finally {
    await close();
  }
});
