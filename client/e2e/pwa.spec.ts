import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, expect, type Page, test, type Worker } from '@playwright/test';
import { startPushService } from '../../scripts/lib/push-stand-in';
import {
  apiLogin,
  authHeaders,
  exposeSocket,
  freshUsername,
  like,
  matchIdOf,
  matchMoment,
  type Person,
  screenshotForDocs,
  shareAShow,
  signIn,
  waitUntilLive,
} from './helpers';

// The installable app (docs/notifications.md): manifest and service worker, the app opening
// offline, the profile's notifications opt-in, and what the service worker does with a push and a
// tap. The e2e servers serve the production build, so /sw.js is there.

// A phone's width, and pixels that are pleasant to look at in the screenshots.
// The other specs block the service worker (client/e2e/playwright.config.ts); this one tests it.
test.use({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, serviceWorkers: 'allow' });

/** Waits until the service worker controls `page` (it registers after load and claims open windows). */
async function controlledByServiceWorker(page: Page): Promise<void> {
  await page.waitForFunction(() => navigator.serviceWorker?.controller?.state === 'activated', undefined, {
    timeout: 20_000,
  });
}

/** The app's service worker, as Playwright reaches it. */
async function serviceWorker(context: BrowserContext): Promise<Worker> {
  return context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
}

test('the app is installable: a manifest with its icons and a service worker in control', async ({
  playwright,
}, testInfo) => {
  // Chromium never offers to install from an incognito profile, which every new context is: this
  // test runs in a browser with a profile of its own.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-pwa-'));
  const { launchOptions, baseURL } = testInfo.project.use;
  const context = await playwright.chromium.launchPersistentContext(profile, {
    ...launchOptions,
    baseURL,
    viewport: { width: 390, height: 844 },
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await checkInstallable(page);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

/** A new person who shares a show with `person`, whom `person` has liked: their like back makes a match. */
async function someoneLiked(page: Page, person: Person, prefix: string): Promise<Person> {
  const someone = await apiLogin(page, freshUsername(prefix));
  await shareAShow(person, someone);
  await like(page.request, person, someone);
  return someone;
}

async function checkInstallable(page: Page) {
  await signIn(page, 'pwa_install');
  await controlledByServiceWorker(page);

  const manifest = await page.request.get('/manifest.webmanifest');
  expect(manifest.headers()['content-type']).toMatch(/^application\/manifest\+json/);
  expect(await manifest.json()).toMatchObject({
    id: '/',
    name: 'PodMatch',
    short_name: 'PodMatch',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: '#0b0b12',
    background_color: '#0b0b12',
    icons: expect.arrayContaining([
      expect.objectContaining({ src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' }),
      expect.objectContaining({ src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' }),
      expect.objectContaining({ src: '/icons/icon-maskable-512.png', purpose: 'maskable' }),
    ]),
  });
  const worker = await page.request.get('/sw.js');
  expect(worker.headers()['cache-control']).toBe('no-cache');
  const registration = await page.evaluate(async () => {
    const found = await navigator.serviceWorker.getRegistration();
    return { scope: found?.scope, script: found?.active?.scriptURL };
  });
  expect(new URL(registration.scope ?? '').pathname).toBe('/');
  expect(new URL(registration.script ?? '').pathname).toBe('/sw.js');

  // Lighthouse 12 has no PWA category any more; Chrome decides installability itself, and this is
  // the check it (and Lighthouse's old "installable-manifest" audit) runs: no errors, no install.
  const cdp = await page.context().newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  expect(installabilityErrors).toEqual([]);
  const { url, errors } = await cdp.send('Page.getAppManifest');
  expect(new URL(url).pathname).toBe('/manifest.webmanifest');
  expect(errors).toEqual([]);
}

test('offline, the app opens from the cache and says so; back online it catches up', async ({ page, context }) => {
  await signIn(page, 'pwa_offline');
  await controlledByServiceWorker(page);
  const offlineStatus = page.getByTestId('offline-status');
  await expect(offlineStatus).toBeEmpty();

  await context.setOffline(true);
  await expect(offlineStatus).toContainText("You're offline.");
  await page.reload();
  // The shell came from the service worker; the session check could not reach the server. (Chromium
  // keeps navigator.onLine true in a document opened under offline emulation: the failed requests
  // say it, "Can't reach PodMatch.")
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await expect(offlineStatus).toContainText(/You're offline\.|Can't reach PodMatch\./);
  await expect(page.getByRole('heading', { name: 'Waiting for a connection' })).toBeVisible();
  await screenshotForDocs(page, 'offline');

  await context.setOffline(false);
  await expect(offlineStatus).toBeEmpty({ timeout: 20_000 });
  // The app tried again by itself: the feed is back.
  await expect(page.getByTestId('user-display-name')).toBeVisible();
});

test('the profile card turns notifications on for this device; a message then reaches it through the push service', async ({
  page,
  context,
}) => {
  // A local Web Push service: checks the worker's VAPID JWT and decrypts with this subscription's keys.
  const push = await startPushService();
  const subscription = { ...push.newSubscription(), expirationTime: null };
  // Headless Chromium reaches no push service: the Push API answers with a subscription made here.
  await context.addInitScript((json) => {
    let current: unknown = null;
    const make = (key: BufferSource | string | null | undefined) => ({
      endpoint: json.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: key ?? null },
      toJSON: () => json,
      getKey: () => null,
      unsubscribe: async () => {
        current = null;
        return true;
      },
    });
    PushManager.prototype.getSubscription = async function getSubscription() {
      return current as PushSubscription | null;
    };
    PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
      current = make(options?.applicationServerKey);
      return current as PushSubscription;
    };
  }, subscription);
  await context.grantPermissions(['notifications']);
  const person = await signIn(page, 'pwa_optin');
  await controlledByServiceWorker(page);

  await page.goto('/profile');
  const card = page.getByTestId('notifications-card');
  await expect(card.getByTestId('notifications-state')).toHaveText('Off for this device');
  // Whether a headless page has focus varies: the browser's answer is set here. The person is looking
  // at the app when the device is registered, so its first focus report says so.
  const focusReport = (focused: boolean) =>
    context.waitForEvent('requestfinished', {
      predicate: (request) => request.url().endsWith('/focus') && request.postData() === JSON.stringify({ focused }),
      timeout: 10_000,
    });
  const setFocus = (focused: boolean) =>
    page.evaluate((value) => {
      Document.prototype.hasFocus = () => value;
      window.dispatchEvent(new Event(value ? 'focus' : 'blur'));
    }, focused);
  await setFocus(true);
  const focused = focusReport(true);
  await card.getByRole('button', { name: 'Turn on notifications on this device' }).click();
  expect((await (await focused).response())?.status()).toBe(200);
  await expect(card.getByTestId('notifications-state')).toHaveText('On for this device');
  const device = card.getByTestId('push-device');
  await expect(device).toHaveCount(1);
  await expect(device).toContainText('Chrome on Android · this device');

  const settings = await page.request.get(`/api/users/${person.id}/notifications`, { headers: authHeaders(person) });
  expect(settings.ok(), await settings.text()).toBe(true);
  const body = (await settings.json()) as { devices: { id: number; deviceLabel: string }[] };
  expect(body.devices).toEqual([expect.objectContaining({ deviceLabel: 'Chrome on Android' })]);
  const stored = await page.evaluate((id) => localStorage.getItem(`podmatch.pushDevice.${id}`), person.id);
  expect(Number(stored)).toBe(body.devices[0]?.id);

  // Quiet hours, saved.
  await card.getByRole('switch', { name: 'Quiet hours' }).check();
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByTestId('notifications-save-state')).toHaveText('Saved');
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: 'test-results/screens/notifications-card.png' });
  // Off again, so that the push below is not held back whatever the time of day of this run.
  await card.getByRole('switch', { name: 'Quiet hours' }).uncheck();
  await card.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(async () => {
      const answer = await page.request.get(`/api/users/${person.id}/notifications`, { headers: authHeaders(person) });
      return ((await answer.json()) as { preferences: { quietHours: unknown } }).preferences.quietHours;
    })
    .toBeNull();

  // Someone matches and writes while the app is closed: the device gets the conversation's push.
  const sam = await someoneLiked(page, person, 'pwa_sam');
  await like(context.request, sam, person);
  const matchId = await matchIdOf(person, sam);
  // The person switches to another app: the device reports its blur, and pushes are no longer held back.
  const unfocused = focusReport(false);
  await setFocus(false);
  expect((await (await unfocused).response())?.status()).toBe(200);
  const sent = await context.request.post('/api/chat', {
    headers: authHeaders(sam),
    data: { matchId, senderId: sam.id, content: 'Hello from the other side' },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  await expect
    .poll(() => push.received(subscription.endpoint).map((r) => r.payload), { timeout: 20_000 })
    .toContainEqual({
      type: 'show',
      kind: 'messages',
      tag: `chat-${matchId}`,
      title: sam.name,
      body: 'Sent you a message',
      url: `/chat/${matchId}`,
      id: expect.any(String),
    });
  await push.close();
});

test('a new match offers notifications once, in the match moment', async ({ page, context }) => {
  await exposeSocket(context);
  const person = await signIn(page, 'pwa_moment');
  await controlledByServiceWorker(page);
  await waitUntilLive(page);
  const sam = await someoneLiked(page, person, 'pwa_rio');
  // Sam likes back: the match moment opens, with the offer under it.
  await like(context.request, sam, person);
  const offer = matchMoment(page).getByTestId('notifications-prompt');
  await expect(offer).toContainText(`Want to know when ${sam.name} writes back?`, { timeout: 15_000 });
  await expect(offer.getByRole('button', { name: 'Turn on notifications' })).toBeVisible();
  await screenshotForDocs(page, 'match-moment-notifications');
  await offer.getByRole('button', { name: 'Not now' }).click();
  await expect(offer).toHaveCount(0);
  expect(
    await page.evaluate((id) => localStorage.getItem(`podmatch.notificationsOffered.${id}`), person.id),
  ).toBeTruthy();
});

test('the service worker shows a push unless the app is in front, clears it, and a tap opens its screen', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['notifications']);
  await signIn(page, 'pwa_push');
  await controlledByServiceWorker(page);
  const worker = await serviceWorker(context);
  const tag = 'chat-987654';
  const openNotifications = () =>
    worker.evaluate(async (t) => (await self.registration.getNotifications({ tag: t })).map((n) => n.title), tag);
  const push = (payload: unknown) =>
    worker.evaluate((data) => {
      // A synthetic event: its waitUntil throws (untrusted), the handler's work has started by then.
      const PushEventClass = (self as unknown as { PushEvent: new (type: string, init: object) => Event }).PushEvent;
      self.dispatchEvent(new PushEventClass('push', { data }));
    }, JSON.stringify(payload));

  // No window of the app: the notification is shown; a 'clear' for its tag closes it.
  await page.goto('about:blank');
  await push({
    type: 'show',
    kind: 'messages',
    tag,
    title: 'Zoe',
    body: 'Zoe sent you a message',
    url: '/chat/987654',
  });
  await expect.poll(openNotifications).toEqual(['Zoe']);
  await push({ type: 'clear', tag });
  await expect.poll(openNotifications).toEqual([]);

  // With the app open, a tap on a notification routes that window (no reload) to the chat.
  await page.goto('/profile');
  await expect(page.getByTestId('notifications-card')).toBeVisible();
  await page.evaluate(() => Object.assign(window, { __sameDocument: true }));
  await worker.evaluate(async (t) => {
    await self.registration.showNotification('Zoe', { tag: t, data: { url: '/chat/987654' } });
    const [notification] = await self.registration.getNotifications({ tag: t });
    const NotificationEventClass = (self as unknown as { NotificationEvent: new (type: string, init: object) => Event })
      .NotificationEvent;
    self.dispatchEvent(new NotificationEventClass('notificationclick', { notification }));
  }, tag);
  await expect(page).toHaveURL((url) => url.pathname === '/chat/987654');
  await expect(page.getByTestId('chat-not-found').or(page.getByTestId('chat-screen'))).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  // The tap closed it, and opening the conversation closes its notifications anyway.
  await expect.poll(openNotifications).toEqual([]);
});

declare const self: ServiceWorkerGlobalScopeLike;
interface ServiceWorkerGlobalScopeLike extends EventTarget {
  registration: ServiceWorkerRegistration;
}
