import { type APIRequestContext, expect, type Page } from '@playwright/test';
import { STORAGE_KEYS } from '../../shared/src/constants';

/** A username nobody used before (dev login creates the user; displayName = username as typed). */
export function freshUsername(prefix = 'e2e'): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The Radix toast region (role region, "Notifications (F8)"). */
export function toasts(page: Page) {
  return page.getByRole('region', { name: /Notifications/ });
}

/** Logs in through the development form and waits for the feed. */
export async function devLogin(page: Page, username = freshUsername()): Promise<string> {
  await page.goto('/login');
  await page.getByLabel('Or choose any username').fill(username);
  await page.getByRole('button', { name: 'Login as Developer' }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/');
  await expect(page.getByTestId('user-display-name')).toHaveText(username);
  return username;
}

export interface Person {
  page: Page;
  name: string;
  id: number;
  token: string;
}

/** Dev-login a fresh user in `page` and read back their id and bearer token. */
export async function signIn(page: Page, prefix: string): Promise<Person> {
  const name = await devLogin(page, freshUsername(prefix));
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

/** `from` likes `to` through the API, as the feed would. */
export async function like(request: APIRequestContext, from: Person, to: Person) {
  const response = await request.post('/api/matches', {
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
  expect(response.ok(), await response.text()).toBe(true);
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
