import { useSyncExternalStore } from 'react';

// Whether the app can reach its server (docs/notifications.md, "Offline"): the browser's own
// network flag, and what the last requests found. navigator.onLine alone is not enough: it stays
// true on a network that carries nothing (and in a document opened from the service worker's cache
// while the network is gone), so a request that fails to reach the server at all counts too, until
// one gets an answer again. Part of the first load: small, no imports.

export type Connection = 'online' | 'offline' | 'unreachable';

let requestsFailing = false;
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

/** A request never reached the server (fetch rejected: no network, refused, DNS). */
export function noteNetworkFailure(): void {
  if (requestsFailing) return;
  requestsFailing = true;
  notify();
}

/** A request got an answer (any status): the server is reachable. */
export function noteNetworkAnswer(): void {
  if (!requestsFailing) return;
  requestsFailing = false;
  notify();
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    listeners.delete(onChange);
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

function current(): Connection {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return 'offline';
  return requestsFailing ? 'unreachable' : 'online';
}

/** 'offline' (no network), 'unreachable' (requests do not get through) or 'online'; re-renders on change. */
export function useConnection(): Connection {
  return useSyncExternalStore(subscribe, current, () => 'online');
}
