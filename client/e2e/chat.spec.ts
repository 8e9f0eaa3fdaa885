import { type Browser, type BrowserContext, expect, type Page, type Request, test } from '@playwright/test';
import { CHAT_TEXTS, ICEBREAKER_TEMPLATES } from '../../shared/src/constants';
import { addShows, like, type Person, shareAShow, signIn } from './helpers';

// The client exposes its socket as window.__podmatchSocket only when this storage flag is set before
// it loads (E2E_SOCKET_FLAG in client/src/lib/socket.ts): the test cuts and restores a connection.
const E2E_SOCKET_FLAG = 'podmatch.e2e';

type TestWindow = { __podmatchSocket?: { connected: boolean; connect(): void; disconnect(): void } };

async function newContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext();
  await context.addInitScript((flag) => localStorage.setItem(flag, '1'), E2E_SOCKET_FLAG);
  return context;
}

/** A and B, signed in in their own browser contexts, with a mutual (romantic) match; its id. */
async function matchedPair(browser: Browser, shows: string[] = []) {
  const contexts = [await newContext(browser), await newContext(browser)];
  const a = await signIn(await contexts[0]!.newPage(), 'cA');
  const b = await signIn(await contexts[1]!.newPage(), 'cB');
  if (shows.length) {
    await addShows(a, shows);
    await addShows(b, shows);
  } else {
    await shareAShow(a, b);
  }
  await like(b.page.request, b, a);
  await like(a.page.request, a, b);
  const list = await a.page.request.get(`/api/users/${a.id}/matches?intent=romantic`, {
    headers: { authorization: `Bearer ${a.token}` },
  });
  const matches = (await list.json()) as { id: number; matchedUser: { id: number } }[];
  const matchId = matches.find((m) => m.matchedUser.id === b.id)?.id;
  expect(matchId, 'A and B are matched').toBeTruthy();
  return { a, b, matchId: matchId ?? 0, close: () => Promise.all(contexts.map((c) => c.close())) };
}

const input = (page: Page) => page.getByPlaceholder(CHAT_TEXTS.placeholder);
const messages = (page: Page, text: string) => page.getByTestId('message').filter({ hasText: text });

async function send(page: Page, text: string) {
  await input(page).fill(text);
  await input(page).press('Enter');
}

/** Both chats are open and both sockets connected: each side sees the other online. */
async function bothOnline(a: Person, b: Person) {
  await expect(a.page.getByTestId('presence')).toHaveText('Online');
  await expect(b.page.getByTestId('presence')).toHaveText('Online');
}

function setSocket(page: Page, connected: boolean) {
  return page.evaluate((on) => {
    const socket = (window as unknown as TestWindow).__podmatchSocket;
    if (!socket) throw new Error('the e2e socket hook is not exposed');
    if (on) socket.connect();
    else socket.disconnect();
  }, connected);
}

const isMessagesGet = (matchId: number) => (request: Request) =>
  request.method() === 'GET' && new URL(request.url()).pathname.endsWith(`/matches/${matchId}/messages`);
const isPoll = (matchId: number) => (request: Request) =>
  isMessagesGet(matchId)(request) && new URL(request.url()).searchParams.has('after');

test('A sends, B sees it live without a reload, and A sees it once', async ({ browser }) => {
  const { a, b, matchId, close } = await matchedPair(browser);
  try {
    // B opens the chat from Matches, A directly. (A load of Matches: the match moment of the likes
    // above may still be on B's feed, depending on when B's socket connected.)
    await b.page.goto('/matches');
    await b.page
      .getByTestId('match-card')
      .filter({ hasText: a.name })
      .getByRole('button', { name: `Message ${a.name}` })
      .click();
    await expect(b.page).toHaveURL((url) => url.pathname === `/chat/${matchId}`);
    await expect(b.page.getByRole('heading', { level: 1 })).toHaveText(a.name);
    await a.page.goto(`/chat/${matchId}`);
    await expect(a.page.getByText(CHAT_TEXTS.emptyTitle)).toBeVisible();
    await bothOnline(a, b);
    await b.page.evaluate(() => Object.assign(window, { stillTheSamePage: true }));

    const text = `Hello ${b.name}, it is A`;
    await send(a.page, text);
    await expect(messages(b.page, text)).toHaveCount(1, { timeout: 1_000 });
    await expect(messages(b.page, text)).toHaveAttribute('data-own', 'false');

    // B answers; once A has it, A's own 'message:new' (published before it) has arrived too.
    await send(b.page, 'Got it!');
    await expect(messages(a.page, 'Got it!')).toHaveCount(1);
    await expect(messages(a.page, text)).toHaveCount(1);
    await expect(messages(a.page, text)).toHaveAttribute('data-pending', 'false');
    await expect(messages(a.page, text)).toHaveAttribute('data-own', 'true');
    expect(await b.page.evaluate(() => 'stillTheSamePage' in window)).toBe(true);
  } finally {
    await close();
  }
});

test('with its socket cut, B gets messages by polling every 5 s, and polling stops once the socket is back', async ({
  browser,
}) => {
  test.setTimeout(60_000);
  const { a, b, matchId, close } = await matchedPair(browser);
  try {
    await b.page.goto(`/chat/${matchId}`);
    await a.page.goto(`/chat/${matchId}`);
    await bothOnline(a, b);
    const bGets: Request[] = [];
    b.page.on('request', (request) => {
      if (isMessagesGet(matchId)(request)) bGets.push(request);
    });

    // B goes offline: polling starts at once. A sends only once that first poll has been answered, or
    // a slow server could answer it with A's message already stored.
    const firstPoll = b.page.waitForResponse((response) => isPoll(matchId)(response.request()));
    await setSocket(b.page, false);
    await firstPoll;

    // A's message reaches B only through the next poll.
    const text = 'Sent while B was offline';
    await send(a.page, text);
    await expect(messages(a.page, text)).toHaveAttribute('data-pending', 'false');
    await expect(messages(b.page, text)).toHaveCount(1, { timeout: 12_000 });
    expect(bGets.filter(isPoll(matchId)).length).toBeGreaterThanOrEqual(2);

    // B's socket is back (B catches up once, and asks for A's presence again).
    await setSocket(b.page, true);
    await expect
      .poll(() => b.page.evaluate(() => (window as unknown as TestWindow).__podmatchSocket?.connected))
      .toBe(true);
    await expect(b.page.getByTestId('presence')).toHaveText('Online');

    // Sentinel instead of a sleep: A goes offline and polls at once, then every 5 s. Between A's first
    // and third poll (two full intervals) a poll timer still running in B would have fired.
    let aPolls = 0;
    let bAtFirstAPoll = -1;
    a.page.on('request', (request) => {
      if (!isPoll(matchId)(request)) return;
      aPolls += 1;
      if (aPolls === 1) bAtFirstAPoll = bGets.length;
    });
    await setSocket(a.page, false);
    await expect.poll(() => aPolls, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    expect(bAtFirstAPoll).toBeGreaterThan(0);
    expect(bGets.length).toBe(bAtFirstAPoll);

    // And B hears A live again once A is back, still without asking for messages.
    await setSocket(a.page, true);
    await expect(a.page.getByTestId('presence')).toHaveText('Online');
    await send(a.page, 'Back online');
    await expect(messages(b.page, 'Back online')).toHaveCount(1);
    expect(bGets.length).toBe(bAtFirstAPoll);
  } finally {
    await close();
  }
});

test('the icebreaker fills the input with a template naming a podcast the two share', async ({ browser }) => {
  // Shows no other spec gives its people: two people with identical libraries match at 100 % and
  // would come first in other specs' feeds.
  const shows = ['planet money', 'freakonomics radio', 'this american life'];
  const { a, matchId, close } = await matchedPair(browser, shows);
  try {
    const answer = await a.page.request.get(`/api/matches/${matchId}`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    const match = (await answer.json()) as { sharedPodcasts: { name: string }[]; sharedPodcastCount: number };
    expect(match.sharedPodcastCount).toBe(shows.length);
    const names = match.sharedPodcasts.slice(0, 3).map((p) => p.name);
    const suggestions = names.flatMap((name) => ICEBREAKER_TEMPLATES.map((t) => t.replace('{podcast}', name)));

    await a.page.goto(`/chat/${matchId}`);
    await expect(a.page.getByTestId('shared-podcasts')).toHaveText(`${shows.length} shared podcasts`);
    await a.page.getByRole('button', { name: CHAT_TEXTS.icebreakerButton }).click();
    await expect(input(a.page)).toBeFocused();
    expect(suggestions).toContain(await input(a.page).inputValue());
  } finally {
    await close();
  }
});

test("a match that does not exist is 'Conversation not found' with a way back to Matches", async ({ browser }) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await signIn(page, 'nf');
    for (const path of ['/chat/2147483000', '/chat/abc']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { name: CHAT_TEXTS.notFoundTitle })).toBeVisible();
      await expect(page.getByText(CHAT_TEXTS.notFoundBody)).toBeVisible();
    }
    await page.getByRole('link', { name: CHAT_TEXTS.backToMatches }).click();
    await expect(page).toHaveURL((url) => url.pathname === '/matches');
  } finally {
    await context.close();
  }
});
