import { type Browser, expect, test } from '@playwright/test';
import { CHAT_TEXTS } from '../../shared/src/constants';
import { expectMatchMoment, exposeSocket, like, type Person, shareAShow, signIn, waitUntilLive } from './helpers';

// The browser tests run against two server instances behind HAProxy (scripts/test.ts,
// scripts/lib/load-balancer.ts, deploy/haproxy.cfg), which keeps each browser on one instance with a cookie and says in a
// header which one answered. Here each person is put on a different one.
const INSTANCE_COOKIE = 'podmatch_instance';
const INSTANCE_HEADER = 'x-podmatch-instance';

async function personOn(browser: Browser, instance: number, prefix: string): Promise<Person> {
  const context = await browser.newContext();
  await exposeSocket(context);
  const baseURL = test.info().project.use.baseURL ?? '';
  await context.addCookies([{ name: INSTANCE_COOKIE, value: String(instance), url: baseURL }]);
  const person = await signIn(await context.newPage(), prefix);
  const served = await person.page.request.get('/api/health');
  expect(served.headers()[INSTANCE_HEADER], `${prefix} is served by instance ${instance}`).toBe(String(instance));
  return person;
}

test('two people on different server instances match and chat live', async ({ browser }) => {
  const a = await personOn(browser, 0, 'iA');
  const b = await personOn(browser, 1, 'iB');
  try {
    for (const person of [a, b]) {
      await person.page.getByTestId('nav-matches').click();
      await person.page.getByRole('button', { name: 'Dating' }).click();
      await expect(person.page.getByText('No matches yet')).toBeVisible();
    }
    // B likes A through instance 1, then A likes B through instance 0: both see the match, live.
    await Promise.all([waitUntilLive(a.page), waitUntilLive(b.page)]);
    await shareAShow(a, b);
    await like(b.page.request, b, a);
    await like(a.page.request, a, b);
    // The match moment reaches both, each on their own instance.
    const later = { timeout: 10_000 };
    await Promise.all([expectMatchMoment(a.page, b.name, later), expectMatchMoment(b.page, a.name, later)]);
    const cardOnA = a.page.getByTestId('match-card').filter({ hasText: b.name });
    const cardOnB = b.page.getByTestId('match-card').filter({ hasText: a.name });
    await expect(cardOnA).toBeVisible();
    await expect(cardOnB).toBeVisible();

    // Both open the chat; messages cross from one instance to the other through Redis.
    await cardOnA.getByRole('button', { name: `Message ${b.name}` }).click();
    await cardOnB.getByRole('button', { name: `Message ${a.name}` }).click();
    await expect(a.page.getByTestId('presence')).toHaveText('Online');
    await expect(b.page.getByTestId('presence')).toHaveText('Online');
    const input = (person: Person) => person.page.getByPlaceholder(CHAT_TEXTS.placeholder);
    await input(a).fill('Hello from instance 0');
    await input(a).press('Enter');
    await expect(b.page.getByTestId('message').filter({ hasText: 'Hello from instance 0' })).toHaveCount(1);
    await input(b).fill('And back from instance 1');
    await input(b).press('Enter');
    await expect(a.page.getByTestId('message').filter({ hasText: 'And back from instance 1' })).toHaveCount(1);
    // Each message once on each side.
    await expect(a.page.getByTestId('message')).toHaveCount(2);
    await expect(b.page.getByTestId('message')).toHaveCount(2);
  } finally {
    await Promise.all([a.page.context().close(), b.page.context().close()]);
  }
});
