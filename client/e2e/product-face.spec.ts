import { expect, type Locator, type Page, test } from '@playwright/test';
import {
  authHeaders,
  expectMatchMoment,
  expectVideoPlaying,
  exposeSocket,
  feedButton,
  importOpmlTitles,
  like,
  matchIdOf,
  matchMoment,
  type Person,
  screenshotForDocs,
  sendMessage,
  shareAShow,
  signIn,
  twoPeople,
  updateUser,
  waitUntilLive,
} from './helpers';

// Issue 24 on a 390x844 phone: the feed card with a generated intro playing, the first-time guide,
// the match moment, a feed that stays true without a reload, and the Matches list's last message
// and unread mark. Screenshots of each for docs/screens (helpers.ts, screenshotForDocs).

test.use({ viewport: { width: 390, height: 844 } });

// Shows of the demo catalog (a generated intro needs a visible podcast; docs/videos.md).
const INTRO_SHOWS = ['The Adam Buxton Podcast', 'My Brother, My Brother and Me'];
const LONG_NAME = 'Maximiliana Featherstonehaugh-Worthington';
const LONG_TAGLINE = 'Castles, museums, long walks and longer podcasts about history, art and the people who made both';

type Box = { x: number; y: number; width: number; height: number };

const overlap = (a: Box, b: Box) =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0.5 &&
  Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0.5;

/** No two of these boxes overlap, and each lies inside the viewport's width. */
async function expectApart(page: Page, items: [string, Locator][]) {
  const width = await page.evaluate(() => window.innerWidth);
  const boxes: [string, Box][] = [];
  for (const [name, locator] of items) {
    const box = await locator.boundingBox();
    expect(box, `${name} is on screen`).not.toBeNull();
    if (!box) continue;
    expect(box.x, `${name} left edge`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${name} right edge`).toBeLessThanOrEqual(width);
    boxes.push([name, box]);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, boxA] = boxes[i] as [string, Box];
      const [b, boxB] = boxes[j] as [string, Box];
      expect(overlap(boxA, boxB), `${a} ${JSON.stringify(boxA)} overlaps ${b} ${JSON.stringify(boxB)}`).toBe(false);
    }
  }
}

/** The alpha of a computed CSS colour (rgb(), rgba(), oklab(... / a), color(... / a)). */
function alphaOf(color: string): number {
  const slash = /\/\s*([\d.]+)\s*\)$/.exec(color);
  if (slash) return Number(slash[1]);
  const rgba = /^rgba\((?:[^,]+,){3}\s*([\d.]+)\)$/.exec(color);
  if (rgba) return Number(rgba[1]);
  return color === 'transparent' ? 0 : 1;
}

/** Steps through the feed (Arrow Up) until `name`'s card is in front. */
async function showCardOf(page: Page, name: string) {
  const onCard = page.getByTestId('feed-name');
  await expect(onCard).not.toHaveText('', { timeout: 20_000 });
  for (let i = 0; i < 15 && (await onCard.textContent()) !== name; i++) {
    const before = await onCard.textContent();
    await page.keyboard.press('ArrowUp');
    await expect(onCard).not.toHaveText(before ?? '');
  }
  await expect(onCard).toHaveText(name);
}

/** A generated intro for `person` in romance, waited for until it is ready. */
async function generateIntro(person: Person) {
  const started = await person.page.request.post(`/api/users/${person.id}/generate-video`, {
    headers: authHeaders(person),
    data: { intent: 'romantic', matchPercentage: 95 },
  });
  expect(started.status(), await started.text()).toBe(202);
  const { projectId } = (await started.json()) as { projectId: string };
  await expect
    .poll(
      async () => {
        const status = await person.page.request.get(`/api/video-status/${projectId}`, {
          headers: authHeaders(person),
        });
        return ((await status.json()) as { status: string }).status;
      },
      { timeout: 60_000, message: 'the generated intro is ready' },
    )
    .toBe('completed');
}

test('the feed card: no two texts overlap with a generated intro playing; "Why you match" opens above the video', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const other = await browser.newContext();
  try {
    const b = await signIn(await other.newPage(), 'cardb');
    await updateUser(b, { displayName: LONG_NAME, romanticTagline: LONG_TAGLINE });
    await importOpmlTitles(b, INTRO_SHOWS, 'card');
    await generateIntro(b);

    const a = await signIn(page, 'carda');
    await shareAShow(a, b);
    await page.reload();
    await showCardOf(page, LONG_NAME);
    const like = await feedButton(page, 'Like');

    // The generated intro plays on the card.
    const video = page.getByTestId('feed-video');
    await expect(video).toHaveAttribute('src', /\/media\/videos\/[A-Za-z0-9_-]+\.mp4$/);
    await expectVideoPlaying(video);

    const actions = page.getByRole('complementary', { name: 'Match actions' });
    const boxes: [string, Locator][] = [
      ['name', page.getByTestId('feed-name')],
      ['match %', page.getByTestId('feed-percentage')],
      ['tagline', page.getByTestId('feed-tagline')],
      ['why you match', page.getByTestId('feed-why')],
      ['ring', actions.getByTestId('match-ring')],
      ['Like', like],
      ['Pass', actions.getByRole('button', { name: 'Pass' })],
      ['Message', actions.getByRole('button', { name: 'Message' })],
    ];
    await expectApart(page, boxes);
    // One match % everywhere: the card, its label and the ring say the same number.
    const percent = (await page.getByTestId('feed-percentage').textContent()) ?? '';
    await expect(page.getByTestId('feed-card')).toHaveAttribute('aria-label', `${LONG_NAME}, ${percent} match`);
    await expect(actions.getByTestId('match-badge')).toHaveText(percent);
    await screenshotForDocs(page, 'feed-card');

    // "Why you match" opens on an opaque panel above the video, clear of the buttons.
    await page.getByTestId('feed-why').click();
    const shared = page.getByRole('list', { name: 'Shared shows' });
    await expect(shared).toBeVisible();
    const background = await page
      .getByTestId('feed-card-text')
      .evaluate((panel) => getComputedStyle(panel).backgroundColor);
    expect(alphaOf(background), `panel background ${background}`).toBeGreaterThanOrEqual(0.9);
    await expectApart(page, [
      ['shared shows', shared],
      ['ring', actions.getByTestId('match-ring')],
      ['Like', like],
      ['Pass', actions.getByRole('button', { name: 'Pass' })],
      ['Message', actions.getByRole('button', { name: 'Message' })],
    ]);
    await screenshotForDocs(page, 'feed-card-why');
  } finally {
    await other.close();
  }
});

test('the first-time guide is fully visible and tapping "Got it" likes nobody', async ({ page, browser }) => {
  test.setTimeout(60_000);
  const { close } = await twoPeople(page, browser, 'guidea', 'guideb');
  try {
    await page.reload();
    await expect(page.getByTestId('feed-card')).toBeVisible();
    const guide = page.getByTestId('feed-coach-mark');
    const gotIt = guide.getByRole('button', { name: 'Got it' });
    await expect(gotIt).toBeVisible();
    await gotIt.scrollIntoViewIfNeeded();
    const box = await gotIt.boundingBox();
    if (!box) throw new Error('no "Got it" button');
    const viewport = page.viewportSize() ?? { width: 390, height: 844 };
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
    // Nothing covers it: at its middle (and near both ends) the topmost element is the button.
    for (const fx of [0.1, 0.5, 0.9]) {
      const covered = await page.evaluate(
        ([x, y]) => {
          const hit = document.elementFromPoint(x as number, y as number);
          return hit?.closest('button')?.textContent?.trim() ?? hit?.tagName ?? 'nothing';
        },
        [box.x + box.width * fx, box.y + box.height / 2],
      );
      expect(covered, `what is at ${Math.round(fx * 100)} % of "Got it"`).toBe('Got it');
    }

    const decisions: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/matches') decisions.push('like');
    });
    const shown = await page.getByTestId('feed-name').textContent();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await expect(guide).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Like', exact: true })).toBeVisible();
    await expect(page.getByTestId('feed-name')).toHaveText(shown ?? '');
    await page.waitForTimeout(300);
    expect(decisions).toEqual([]);
  } finally {
    await close();
  }
});

test('the match moment: both people see it within 2 s, it names the other and starts the chat', async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000);
  const { a, b, close } = await twoPeople(page, browser, 'momenta', 'momentb');
  try {
    await like(b.page.request, b, a);
    await page.reload();
    await showCardOf(page, b.name);
    await (await feedButton(page, 'Like')).click();

    // A, who acted last, and B, who is on another screen, both see it within 2 s of the like.
    await Promise.all([
      expect(matchMoment(page).getByTestId('match-moment-text')).toHaveText(`You and ${b.name} like each other.`, {
        timeout: 2_000,
      }),
      expectMatchMoment(b.page, a.name),
    ]);
    await screenshotForDocs(page, 'match-moment');

    await matchMoment(page).getByRole('button', { name: 'Send a message' }).click();
    await expect(page).toHaveURL((url) => url.pathname.startsWith('/chat/'));
    // The input holds an icebreaker naming the show the two share.
    await expect(page.getByRole('textbox', { name: 'Message', exact: true })).not.toHaveValue('');
    await expect(matchMoment(page)).toHaveCount(0);
  } finally {
    await close();
  }
});

test('the feed stays true: a show added elsewhere brings its people in without a reload', async ({ page }) => {
  test.setTimeout(60_000);
  const me = await signIn(page, 'fresh');
  // Only people who share a show (above 0 %), so the feed starts empty.
  await updateUser(me, { matchPreferences: { minMatchPercentage: 1 } });
  // Live first: what happens elsewhere reaches a tab through its socket.
  await exposeSocket(page.context());
  await page.reload();
  await expect(page.getByText('Well, this is awkward.')).toBeVisible();
  await waitUntilLive(page);
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });

  // Another tab (the API, as My Profile calls it) adds a show the seeded demo people listen to.
  const found = await page.request.get('/api/podcasts/search?q=Radiolab', { headers: authHeaders(me) });
  const [show] = (await found.json()) as { id: number }[];
  const added = await page.request.post(`/api/users/${me.id}/podcasts`, {
    headers: authHeaders(me),
    data: { podcastId: show?.id },
  });
  expect(added.ok(), await added.text()).toBe(true);

  await expect(page.getByTestId('feed-card')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('feed-why')).toContainText('shared show');
  const badge = page.getByTestId('nav-feed-badge');
  await expect(badge).toHaveText(/^[1-9]\d*\+?$/);
  // The count on one line, however many digits (it once stacked them).
  const box = await badge.boundingBox();
  expect(box?.height ?? 0).toBeLessThanOrEqual(24);
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
});

test('Matches show the last message and an unread mark; reading clears it, a reply shows as yours', async ({
  page,
  browser,
}) => {
  test.setTimeout(60_000);
  const { a, b, close } = await twoPeople(page, browser, 'lasta', 'lastb');
  try {
    await like(page.request, a, b);
    await like(b.page.request, b, a);
    const matchId = await matchIdOf(a, b);
    await sendMessage(b, matchId, 'Did you hear the new Radiolab episode about clouds?');

    await page.goto('/matches');
    const card = page.getByTestId('match-card').filter({ hasText: b.name });
    await expect(card.getByTestId('match-last-message')).toContainText(
      'Did you hear the new Radiolab episode about clouds?',
    );
    await expect(card.getByTestId('match-unread')).toBeVisible();
    await expect(card.getByText('New', { exact: true })).toHaveCount(0);
    await screenshotForDocs(page, 'matches');

    await card.getByRole('button', { name: `Message ${b.name}` }).click();
    await expect(page.getByText('Did you hear the new Radiolab episode about clouds?')).toBeVisible();
    const input = page.getByRole('textbox', { name: 'Message', exact: true });
    await input.fill('Yes! The one about fog was even better.');
    await input.press('Enter');
    await expect(page.getByTestId('message').filter({ hasText: 'The one about fog' })).toBeVisible();
    await screenshotForDocs(page, 'chat');

    await page.goBack();
    await expect(page).toHaveURL((url) => url.pathname === '/matches');
    await expect(card.getByTestId('match-last-message')).toContainText('You: Yes! The one about fog');
    await expect(card.getByTestId('match-unread')).toHaveCount(0);
    // A new message from B arrives live: the mark comes back, and B's card is first.
    await sendMessage(b, matchId, 'Fog! Right?');
    await expect(card.getByTestId('match-last-message')).toContainText('Fog! Right?');
    await expect(card.getByTestId('match-unread')).toBeVisible();
    await expect(page.getByTestId('match-card').first()).toContainText(b.name);
  } finally {
    await close();
  }
});

test('a demo match answers a message: typing first, then a line about a show the two share', async ({ page }) => {
  test.setTimeout(60_000);
  const me = await signIn(page, 'demochat');
  // SPEC's demo user (Maya) listens to these; her like back is instant.
  for (const q of ['Radiolab', 'The Daily', 'Crime Junkie']) {
    const found = await page.request.get(`/api/podcasts/search?q=${encodeURIComponent(q)}`, {
      headers: authHeaders(me),
    });
    const [show] = (await found.json()) as { id: number }[];
    await page.request.post(`/api/users/${me.id}/podcasts`, {
      headers: authHeaders(me),
      data: { podcastId: show?.id },
    });
  }
  let maya: { id: number } | undefined;
  await expect
    .poll(
      async () => {
        const feed = await page.request.get(`/api/users/${me.id}/feed?intent=romantic`, { headers: authHeaders(me) });
        maya = ((await feed.json()) as { id: number; displayName: string | null }[]).find(
          (item) => item.displayName === 'Maya',
        );
        return maya !== undefined;
      },
      { timeout: 20_000, message: 'Maya in the feed' },
    )
    .toBe(true);
  const liked = await page.request.post('/api/matches', {
    headers: authHeaders(me),
    data: { user1Id: me.id, user2Id: maya?.id, intent: 'romantic', user1Liked: true },
  });
  expect(liked.ok(), await liked.text()).toBe(true);
  const { id: matchId } = (await liked.json()) as { id: number; isMutualMatch: boolean };

  await page.goto(`/chat/${matchId}`);
  const input = page.getByRole('textbox', { name: 'Message', exact: true });
  await input.fill('Hi Maya! What are you listening to these days?');
  await input.press('Enter');
  await expect(page.getByTestId('typing-indicator')).toContainText('Maya is typing', { timeout: 10_000 });
  const answer = page.getByTestId('message').filter({ hasText: me.name });
  await expect(answer).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('typing-indicator')).toHaveCount(0);
});
