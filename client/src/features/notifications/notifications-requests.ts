import { api } from '@shared/api';
import type { NotificationPreferences, NotificationSettings, PushDevice } from '@shared/schemas/notifications';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { apiRequest, endpointQuery } from '@/lib/api-client';
import { deviceLabel } from './device-label';
import { rememberPushDevice, storedPushDevice } from './device-storage';

// The calls behind the notification settings (docs/notifications.md) and this browser's part:
// asking for permission, subscribing with the server's key, registering the subscription.

/**
 * The account's notification settings. A device this browser remembers that the server no longer
 * lists (removed elsewhere, or dropped when its push service said it is gone) is forgotten here.
 */
export function notificationSettingsQuery(userId: number) {
  const input = { params: { userId } };
  return queryOptions({
    ...endpointQuery(api.notificationSettings, input),
    queryFn: async ({ signal }) => {
      const settings = await apiRequest(api.notificationSettings, input, { signal });
      const mine = storedPushDevice(userId);
      if (mine !== null && !settings.devices.some((device) => device.id === mine)) rememberPushDevice(userId, null);
      return settings;
    },
  });
}

export function savePreferences(userId: number, preferences: NotificationPreferences) {
  return apiRequest(api.updateNotificationPreferences, { params: { userId }, body: preferences });
}

/** The person said no (now or before): only the browser's site settings can undo that. */
export class PermissionDenied extends Error {
  override readonly name = 'PermissionDenied';
}

/** The service worker did not come up (a development server, a private window that blocks it). */
export class NoServiceWorker extends Error {
  override readonly name = 'NoServiceWorker';
}

/** The key in base64url, as `applicationServerKey` wants it: the raw bytes. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const text = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const sameKey = (a: ArrayBuffer | null | undefined, b: Uint8Array) =>
  a != null && a.byteLength === b.byteLength && new Uint8Array(a).every((byte, i) => byte === b[i]);

/** The service worker's registration, or NoServiceWorker within a few seconds. */
async function workerRegistration(): Promise<ServiceWorkerRegistration> {
  const registration = await Promise.race([
    navigator.serviceWorker.ready,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
  ]);
  if (!registration) throw new NoServiceWorker('The service worker is not running.');
  return registration;
}

/**
 * "Turn on notifications on this device": asks for permission (only ever from a tap), subscribes
 * with the server's VAPID key (again if the key changed), and registers the subscription as this
 * browser's device; remembers its id for this account.
 */
export async function turnOnPush(userId: number, vapidPublicKey: string): Promise<PushDevice> {
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') throw new PermissionDenied('Notifications are blocked for this site.');
  const registration = await workerRegistration();
  const key = keyBytes(vapidPublicKey);
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameKey(subscription.options?.applicationServerKey, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  const json = subscription.toJSON();
  const device = await apiRequest(api.addPushDevice, {
    params: { userId },
    body: {
      endpoint: json.endpoint ?? subscription.endpoint,
      expirationTime: json.expirationTime ?? null,
      keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' },
      deviceLabel: deviceLabel(navigator.userAgent),
    },
  });
  rememberPushDevice(userId, device.id);
  return device;
}

/**
 * Removes a device from the account. This browser's own also stops its subscription, so nothing
 * arrives here even from a server that missed the removal.
 */
export async function removeDevice(userId: number, deviceId: number): Promise<void> {
  await apiRequest(api.removePushDevice, { params: { userId, deviceId } });
  if (storedPushDevice(userId) !== deviceId) return;
  rememberPushDevice(userId, null);
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
  } catch {
    // the server no longer sends to it: enough
  }
}

/** Puts the settings' new state in the cache (the card and the match moment read the same query). */
export function updateSettings(
  queryClient: QueryClient,
  userId: number,
  change: (settings: NotificationSettings) => NotificationSettings,
): void {
  queryClient.setQueryData(notificationSettingsQuery(userId).queryKey, (current) =>
    current ? change(current) : current,
  );
}
