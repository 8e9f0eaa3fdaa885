import { useSyncExternalStore } from 'react';

// Which push device (the server's id for this browser's subscription) belongs to this browser, per
// account: the card marks it "This device", the focus reports name it. Small and free of zod: the
// app reads it on every screen to decide whether focus reports run at all.

const PREFIX = 'podmatch.pushDevice.';
const CHANGED = 'podmatch:push-device';

const keyFor = (userId: number) => `${PREFIX}${userId}`;

/** This browser's push device id for `userId`, or null when it receives no pushes for that account. */
export function storedPushDevice(userId: number): number | null {
  try {
    const value = Number(localStorage.getItem(keyFor(userId)));
    return Number.isInteger(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

export function rememberPushDevice(userId: number, deviceId: number | null): void {
  try {
    if (deviceId === null) localStorage.removeItem(keyFor(userId));
    else localStorage.setItem(keyFor(userId), String(deviceId));
  } catch {
    // storage unavailable: focus reports stay off, nothing else depends on it
  }
  window.dispatchEvent(new Event(CHANGED));
}

function subscribe(onChange: () => void): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key.startsWith(PREFIX)) onChange();
  };
  window.addEventListener(CHANGED, onChange);
  window.addEventListener('storage', onStorage);
  return () => {
    window.removeEventListener(CHANGED, onChange);
    window.removeEventListener('storage', onStorage);
  };
}

/** storedPushDevice(userId), re-read when this or another tab changes it. */
export function usePushDevice(userId: number): number | null {
  return useSyncExternalStore(
    subscribe,
    () => storedPushDevice(userId),
    () => null,
  );
}
