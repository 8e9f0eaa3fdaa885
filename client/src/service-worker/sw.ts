// The service worker (docs/notifications.md), served at /sw.js with scope /. Built by
// vite-plugin-pwa's injectManifest (client/vite.config.ts), which writes the build's file list into
// `self.__WB_MANIFEST`.
//
// - The app shell (index.html and the hashed assets) is precached, so the app opens offline: every
//   navigation is answered the cached index.html, the router takes it from there. /api, /socket.io,
//   /media and /dev are never answered from here (no route matches them: they go to the network).
// - A new version waits until every window of the old one is closed (no skipWaiting on install,
//   which would swap the code under an open chat); the app may ask for it sooner ("Restart now").
// - Pushes and taps on notifications: ./push-handlers.ts.
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { handlePush, notificationUrl, openFromNotification, type WorkerScope } from './push-handlers';

/** The events this worker handles, typed here: the client's TypeScript program has the DOM library, not WebWorker's. */
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
  readonly action: string;
}
interface ExtendableMessageEvent extends ExtendableEvent {
  readonly data: unknown;
}
interface WorkerGlobal extends WorkerScope {
  __WB_MANIFEST: (string | { url: string; revision: string | null })[];
  skipWaiting(): Promise<void>;
  clients: WorkerScope['clients'] & { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
  addEventListener(type: 'message', listener: (event: ExtendableMessageEvent) => void): void;
}

declare const self: WorkerGlobal;

/** Paths the server answers itself: never the app shell, never cached. */
const SERVER_PATHS = [/^\/api\//, /^\/socket\.io\//, /^\/media\//, /^\/dev\//];

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: SERVER_PATHS }));

// The first worker takes the open windows at once (nothing was in control of them; the offline
// shell then works without a reload). A later version activates only once the old one's windows are
// gone, so claiming then changes nothing under an open screen.
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  const data = event.data as { type?: unknown } | null;
  // "Restart now" in the app (workbox-window's messageSkipWaiting): the app reloads once we control it.
  if (data?.type === 'SKIP_WAITING') void self.skipWaiting();
});

self.addEventListener('push', (event) => {
  event.waitUntil(handlePush(self, event.data?.text()));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openFromNotification(self, notificationUrl(event.notification)));
});
