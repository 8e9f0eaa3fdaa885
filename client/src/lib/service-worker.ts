import { useSyncExternalStore } from 'react';
import { isAppPath } from './app-path';

// The app's side of the service worker (src/service-worker/sw.ts, docs/notifications.md): register
// it once the page has loaded, offer a waiting new version, route the screens a tapped notification
// opens, and close a conversation's notifications once it is open. Part of the first load: small,
// and the registration code (workbox-window) is fetched only after the page has loaded.

let applyUpdate: (() => void) | null = null;
const updateListeners = new Set<() => void>();

function setUpdateReady(apply: () => void): void {
  applyUpdate = apply;
  for (const listener of updateListeners) listener();
}

/** Tests only: as if a new version were waiting; `apply` is what "Restart now" runs. */
export const announceUpdateForTests = setUpdateReady;

/** Tests only: no version waiting. */
export function forgetUpdate(): void {
  applyUpdate = null;
  for (const listener of updateListeners) listener();
}

function subscribeUpdate(listener: () => void): () => void {
  updateListeners.add(listener);
  return () => updateListeners.delete(listener);
}

/** Whether a new version of the app is installed and waiting for the old one's windows to close. */
export function useUpdateReady(): boolean {
  return useSyncExternalStore(
    subscribeUpdate,
    () => applyUpdate !== null,
    () => false,
  );
}

/** "Restart now": the waiting version takes over and this page reloads into it. */
export function restartIntoUpdate(): void {
  applyUpdate?.();
}

/** Runs `work` once the page has loaded and the browser is idle: never before the first paint. */
function afterLoad(work: () => void): void {
  const idle = () => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(work, { timeout: 5000 });
    else setTimeout(work, 1000);
  };
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}

/**
 * Registers /sw.js (scope /) after load, in production builds only (the dev server has no worker).
 * A new version waits; useUpdateReady() then says so.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  afterLoad(() => {
    void import('./service-worker-registration')
      .then(({ register }) => register(setUpdateReady))
      .catch(() => undefined);
  });
}

/**
 * Follows the service worker's `{type: 'navigate', url}` (a tapped notification, while this window
 * was open): `navigate(url)` routes there without a reload. Returns the unsubscribe function.
 */
export function listenForNavigation(navigate: (url: string) => void): () => void {
  const container = typeof navigator === 'undefined' ? undefined : navigator.serviceWorker;
  if (!container) return () => {};
  const onMessage = (event: MessageEvent) => {
    const data = event.data as { type?: unknown; url?: unknown } | null;
    if (data?.type === 'navigate' && isAppPath(data.url)) navigate(data.url);
  };
  container.addEventListener('message', onMessage);
  return () => container.removeEventListener('message', onMessage);
}

/** Closes this device's notifications with `tag` (e.g. a conversation's, once it is open here). */
export async function closeNotifications(tag: string): Promise<number> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    if (!registration || typeof registration.getNotifications !== 'function') return 0;
    const open = await registration.getNotifications({ tag });
    for (const notification of open) notification.close();
    return open.length;
  } catch {
    // No worker, or notifications not available here: nothing to close.
    return 0;
  }
}
