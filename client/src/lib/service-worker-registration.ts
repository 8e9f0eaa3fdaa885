import { Workbox } from 'workbox-window';

/** How often a long-open app asks whether a new version was deployed (on becoming visible again). */
const UPDATE_CHECK_MS = 60 * 60_000;

/**
 * Registers the worker (loaded after the page, lib/service-worker.ts). A new version installs and
 * waits (the worker never skips waiting by itself: that would swap the code under an open chat);
 * `onWaiting` gets what "Restart now" runs: the new worker takes over, then the page reloads.
 */
export function register(onWaiting: (apply: () => void) => void): void {
  const workbox = new Workbox('/sw.js', { scope: '/' });
  workbox.addEventListener('waiting', () => {
    onWaiting(() => {
      workbox.addEventListener('controlling', () => window.location.reload());
      workbox.messageSkipWaiting();
    });
  });
  void workbox.register();

  let lastCheck = Date.now();
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible' || Date.now() - lastCheck < UPDATE_CHECK_MS) return;
    lastCheck = Date.now();
    void workbox.update().catch(() => undefined);
  });
}
