import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type APIRequestContext,
  type Browser,
  type BrowserContext,
  expect,
  type Locator,
  type Page,
} from '@playwright/test';
import { shareAShow as shareAShowInDatabase } from '../../scripts/lib/feed-fixture';
import { STORAGE_KEYS } from '../../shared/src/constants';

/** A username nobody used before (dev login creates the user; displayName = username as typed). */
export function freshUsername(prefix = 'e2e'): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The Radix toast region (role region, "Notifications (F8)"). */
export function toasts(page: Page) {
  return page.getByRole('region', { name: /Notifications/ });
}

export interface DevLoginOptions {
  /**
   * true (default): the account is marked set up through the API first (PUT setupComplete), so the
   * login lands on the feed. false: a fresh account as a new person has it, which the login sends to
   * the setup wizard (/setup).
   */
  setUp?: boolean;
}

/**
 * Logs in through the development form and waits for the feed (or, with `setUp: false`, for the
 * setup wizard). A set-up account is made first with the dev-login API and marked set up, so the
 * form then opens an existing account; logging in again later opens it the same way.
 */
export async function devLogin(
  page: Page,
  username = freshUsername(),
  { setUp = true }: DevLoginOptions = {},
): Promise<string> {
  if (setUp) await markSetUpByName(page, username);
  await page.goto('/login');
  await page.getByLabel('Or choose any username').fill(username);
  await page.getByRole('button', { name: 'Login as Developer' }).click();
  if (!setUp) {
    await expect(page).toHaveURL((url) => url.pathname === '/setup');
    return username;
  }
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByTestId('user-display-name')).toHaveText(username);
  return username;
}

/** Opens (or makes) the dev-login account `username` through the API, without touching the page. */
export async function apiLogin(page: Page, username: string): Promise<Person> {
  const login = await page.request.post('/api/auth/dev-login', { data: { username } });
  expect(login.ok(), await login.text()).toBe(true);
  const { token, user } = (await login.json()) as { token: string; user: { id: number } };
  return { page, name: username, id: user.id, token };
}

/** Opens (or makes) the dev-login account `username` through the API and marks it set up. */
async function markSetUpByName(page: Page, username: string): Promise<void> {
  await updateUser(await apiLogin(page, username), { setupComplete: true });
}

export interface Person {
  page: Page;
  name: string;
  id: number;
  token: string;
}

/**
 * Dev-login a fresh user in `page` (marked set up unless `setUp: false`) and read back their id and
 * bearer token.
 */
export async function signIn(page: Page, prefix: string, options: DevLoginOptions = {}): Promise<Person> {
  const name = await devLogin(page, freshUsername(prefix), options);
  const stored = await page.evaluate(
    (keys) => ({
      token: localStorage.getItem(keys.token) ?? sessionStorage.getItem(keys.token),
      userId: localStorage.getItem(keys.userId) ?? sessionStorage.getItem(keys.userId),
    }),
    STORAGE_KEYS,
  );
  expect(stored.token).toBeTruthy();
  expect(Number(stored.userId)).toBeGreaterThan(0);
  return { page, name, id: Number(stored.userId), token: stored.token ?? '' };
}

/**
 * `from` likes `to` through the API, as the feed would. A like may only target someone the liker can
 * see (docs/auth.md, "Likes and passes"): this waits until `to` is in `from`'s feed (a recompute after
 * a library change takes a moment) or already decided on.
 */
export async function like(request: APIRequestContext, from: Person, to: Person) {
  await expect
    .poll(
      async () =>
        (
          await request.get(`/api/users/${to.id}?intent=romantic`, {
            headers: { authorization: `Bearer ${from.token}` },
          })
        ).status(),
      { message: `${to.name} in the feed of ${from.name}`, timeout: 20_000 },
    )
    .toBe(200);
  const post = () =>
    request.post('/api/matches', {
      headers: { authorization: `Bearer ${from.token}` },
      data: {
        user1Id: from.id,
        user2Id: to.id,
        intent: 'romantic',
        user1Liked: true,
        user2Liked: false,
        matchPercentage: 0,
      },
    });
  let response = await post();
  if (response.status() === 404) {
    // A recompute still queued from a sign-in can rebuild the feed after shareAShow wrote it (the
    // fixture's show is no feed that was read, so it does not count): put the pair back once.
    await shareAShow(from, to);
    response = await post();
  }
  expect(response.ok(), await response.text()).toBe(true);
}

/**
 * Puts two people who list nothing in common in each other's feeds, as the precompute would once
 * they shared a show: the feed fixture (a fresh show in both libraries and the candidate rows) on the
 * e2e database (E2E_DATABASE_URL, set by `npm test`).
 */
export async function shareAShow(a: Person, b: Person) {
  const databaseUrl = process.env.E2E_DATABASE_URL;
  if (!databaseUrl) throw new Error('E2E_DATABASE_URL is required (npm test sets it)');
  await shareAShowInDatabase(databaseUrl, [[a, b]]);
}

/** Gives `person` the same small library (found through search), so two such people match at 100 %. */
export async function addShows(person: Person, queries: string[]) {
  for (const q of queries) {
    const found = await person.page.request.get(`/api/podcasts/search?q=${encodeURIComponent(q)}`, {
      headers: { authorization: `Bearer ${person.token}` },
    });
    const [first] = (await found.json()) as { id: number }[];
    expect(first, `catalog has ${q}`).toBeTruthy();
    const added = await person.page.request.post(`/api/users/${person.id}/podcasts`, {
      headers: { authorization: `Bearer ${person.token}` },
      data: { podcastId: first?.id },
    });
    expect(added.ok(), await added.text()).toBe(true);
  }
}

/** The bearer header of `person`, for API calls made as them. */
export function authHeaders(person: Person) {
  return { authorization: `Bearer ${person.token}` };
}

/** Changes `person`'s own user record through the API (display name, match preferences, ...). */
export async function updateUser(person: Person, data: Record<string, unknown>) {
  const response = await person.page.request.put(`/api/users/${person.id}`, { headers: authHeaders(person), data });
  expect(response.ok(), await response.text()).toBe(true);
}

/** Imports shows with these titles into `person`'s library as an OPML file (feeds on `.invalid` hosts). */
export async function importOpmlTitles(person: Person, titles: string[], prefix = 'e2e') {
  const outlines = titles
    .map(
      (title, i) => `<outline type="rss" text="${title}" xmlUrl="https://feeds.example.invalid/${prefix}-${i}.xml"/>`,
    )
    .join('\n');
  const opml = `<?xml version="1.0" encoding="UTF-8"?><opml version="2.0"><head><title>${prefix}</title></head><body>${outlines}</body></opml>`;
  const response = await person.page.request.post(`/api/users/${person.id}/podcasts/opml`, {
    headers: authHeaders(person),
    multipart: { opml: { name: `${prefix}.opml`, mimeType: 'text/x-opml', buffer: Buffer.from(opml) } },
  });
  expect(response.ok(), await response.text()).toBe(true);
}

/**
 * A fresh user signed in through the dev-login API (no UI), marked set up (so no screen sends them
 * to the setup wizard), with the session stored in `page` as the app stores it. The page is left
 * on /login; navigate where the test starts.
 */
export async function signInSetUp(page: Page, prefix: string): Promise<Person> {
  const person = await apiLogin(page, freshUsername(prefix));
  await updateUser(person, { setupComplete: true });
  await page.goto('/login');
  await page.evaluate(
    ({ keys, token, userId }) => {
      localStorage.setItem(keys.token, token);
      localStorage.setItem(keys.userId, String(userId));
    },
    { keys: STORAGE_KEYS, token: person.token, userId: person.id },
  );
  return person;
}

/**
 * The feed's Like or Pass button. A newcomer's first-time guide hides them until it is dismissed
 * ("Got it"), as a person would.
 */
export async function feedButton(page: Page, name: 'Like' | 'Pass') {
  const button = page.getByRole('button', { name, exact: true });
  const guide = page.getByTestId('feed-coach-mark');
  await expect(button.or(guide)).toBeVisible();
  if (await guide.isVisible()) {
    await guide.getByRole('button', { name: 'Got it' }).click();
    await expect(guide).toHaveCount(0);
  }
  return button;
}

/** The full-screen "It's a match!" of a new mutual match. */
export function matchMoment(page: Page) {
  return page.getByRole('dialog', { name: "It's a match!" });
}

/** The match moment names `name` within 2 s; "Keep browsing" closes it. */
export async function expectMatchMoment(page: Page, name: string, { timeout = 2_000 } = {}) {
  await expect(matchMoment(page).getByTestId('match-moment-text')).toHaveText(`You and ${name} like each other.`, {
    timeout,
  });
  await matchMoment(page).getByRole('button', { name: 'Keep browsing' }).click();
  await expect(matchMoment(page)).toHaveCount(0);
}

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A screenshot for people to look at: `test-results/screens/<name>.png`, and with UPDATE_SCREENS=1
 * `docs/screens/<name>.png`, the committed ones (docs/screens/README.md).
 */
export async function screenshotForDocs(page: Page, name: string) {
  const dir = process.env.UPDATE_SCREENS === '1' ? 'docs/screens' : 'test-results/screens';
  await page.screenshot({ path: path.join(repoRoot, dir, `${name}.png`) });
}

/** `person` sends `content` in match `matchId` through the API, as the chat would. */
export async function sendMessage(person: Person, matchId: number, content: string) {
  const response = await person.page.request.post('/api/chat', {
    headers: authHeaders(person),
    data: { matchId, senderId: person.id, content },
  });
  expect(response.ok(), await response.text()).toBe(true);
}

/** The id of the mutual match of `a` and `b` in romance (after both liked). */
export async function matchIdOf(a: Person, b: Person): Promise<number> {
  const response = await a.page.request.get(`/api/users/${a.id}/matches?intent=romantic`, { headers: authHeaders(a) });
  expect(response.ok(), await response.text()).toBe(true);
  const match = ((await response.json()) as { id: number; matchedUser: { id: number } }[]).find(
    (m) => m.matchedUser.id === b.id,
  );
  expect(match, `a match of ${a.name} with ${b.name}`).toBeTruthy();
  return match?.id ?? 0;
}

/** A <video> really plays: frames are decoded and time moves (started if autoplay waited). */
export async function expectVideoPlaying(video: Locator) {
  await expect
    .poll(
      () =>
        video.evaluate((v: HTMLVideoElement) => {
          if (v.paused) void v.play().catch(() => {});
          return v.readyState >= 2 && v.currentTime > 0;
        }),
      { timeout: 20_000 },
    )
    .toBe(true);
}

/**
 * `a` signed in on `page`, `b` in a browser context of their own, in each other's feeds (a shared
 * show); `close` ends b's context.
 */
export async function twoPeople(page: Page, browser: Browser, prefixA: string, prefixB: string) {
  const other = await browser.newContext();
  const b = await signIn(await other.newPage(), prefixB);
  const a = await signIn(page, prefixA);
  await shareAShow(a, b);
  return { a, b, close: () => other.close() };
}

/** The storage flag that makes the client expose its socket (E2E_SOCKET_FLAG, client/src/lib/socket.ts). */
const E2E_SOCKET_FLAG = 'podmatch.e2e';

/** Pages of this context expose their socket as window.__podmatchSocket (set before they load). */
export async function exposeSocket(context: BrowserContext) {
  await context.addInitScript((flag) => localStorage.setItem(flag, '1'), E2E_SOCKET_FLAG);
}

/**
 * Waits until the tab's socket is connected (its context went through `exposeSocket`): what happens
 * elsewhere reaches a tab only once it is live, and a test that acts at once would race its connect.
 */
export async function waitUntilLive(page: Page) {
  await expect
    .poll(
      () =>
        page.evaluate(
          () => (window as unknown as { __podmatchSocket?: { connected: boolean } }).__podmatchSocket?.connected,
        ),
      { message: 'the tab is live (socket connected)' },
    )
    .toBe(true);
}
