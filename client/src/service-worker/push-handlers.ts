import type { PushPayload } from '@shared/schemas/notifications';
import { isAppPath } from '../lib/app-path';

// What the service worker does with a push and with a tap on a notification (docs/notifications.md).
// Written against the few parts of the worker's global scope it uses, so tests can hand it fakes;
// no zod here: the worker stays small (it is fetched again on every update check).

/** A window of this app, as `clients.matchAll({type: 'window'})` gives it. */
export interface AppWindow {
  readonly focused: boolean;
  readonly visibilityState: DocumentVisibilityState;
  readonly url: string;
  focus(): Promise<unknown>;
  postMessage(message: unknown): void;
}

/** The parts of ServiceWorkerGlobalScope the handlers use. */
export interface WorkerScope {
  registration: {
    showNotification(title: string, options?: NotificationOptions & { renotify?: boolean }): Promise<void>;
    getNotifications(filter?: { tag?: string }): Promise<readonly Pick<Notification, 'close' | 'tag' | 'data'>[]>;
  };
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly AppWindow[]>;
    openWindow(url: string): Promise<unknown>;
  };
}

/** What the app's windows are told: open this screen (client/src/lib/service-worker.ts). */
export interface NavigateMessage {
  type: 'navigate';
  url: string;
}

export const NOTIFICATION_ICON = '/icons/icon-192.png';
export const NOTIFICATION_BADGE = '/icons/badge-96.png';

const KINDS = new Set(['matches', 'messages', 'videos']);

const isText = (value: unknown): value is string => typeof value === 'string';

/**
 * The push's data as the shared PushPayload (shared/src/schemas/notifications.ts), or null when it
 * is not one: a server of another version or a stray push is ignored rather than shown wrong.
 */
export function parsePushPayload(text: string | null | undefined): PushPayload | null {
  if (!text) return null;
  let data: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    data = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  if (data.type === 'clear') return isText(data.tag) ? { type: 'clear', tag: data.tag } : null;
  if (data.type !== 'show') return null;
  const { kind, tag, title, body, url, id } = data;
  if (!isText(kind) || !KINDS.has(kind) || !isText(tag) || !isText(title) || !isText(body) || !isAppPath(url)) {
    return null;
  }
  if (id !== undefined && (!isText(id) || id.length > 200)) return null;
  const show = {
    type: 'show',
    kind: kind as Extract<PushPayload, { type: 'show' }>['kind'],
    tag,
    title,
    body,
    url,
  } as const;
  return id === undefined ? show : { ...show, id };
}

/** The app's windows, the focused one first, then visible ones. */
async function appWindows(scope: WorkerScope): Promise<AppWindow[]> {
  const windows = await scope.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const rank = (w: AppWindow) => (w.focused ? 0 : w.visibilityState === 'visible' ? 1 : 2);
  return [...windows].sort((a, b) => rank(a) - rank(b));
}

/** Closes this device's notifications with `tag` (read elsewhere, or its screen opened here). */
export async function closeNotifications(scope: WorkerScope, tag: string): Promise<number> {
  const open = await scope.registration.getNotifications({ tag });
  for (const notification of open) notification.close();
  return open.length;
}

/**
 * A push: `show` puts up a notification unless a window of the app is focused (the person is
 * looking at it: the app shows what arrived itself); `clear` closes the notifications of its tag.
 * Answers what it did, for tests.
 */
export async function handlePush(scope: WorkerScope, text: string | null | undefined): Promise<string> {
  const payload = parsePushPayload(text);
  if (!payload) return 'ignored';
  if (payload.type === 'clear') {
    await closeNotifications(scope, payload.tag);
    return 'cleared';
  }
  const windows = await appWindows(scope);
  if (windows.some((w) => w.focused)) return 'skipped';
  // The same notification again (its worker was restarted mid-send): updated in place, silently.
  const repeat =
    payload.id !== undefined &&
    (await scope.registration.getNotifications({ tag: payload.tag })).some(
      (shown) => (shown.data as { id?: unknown } | null)?.id === payload.id,
    );
  await scope.registration.showNotification(payload.title, {
    body: payload.body,
    tag: payload.tag,
    // A new message in the same conversation replaces the notification and alerts again.
    renotify: payload.kind === 'messages' && !repeat,
    icon: NOTIFICATION_ICON,
    badge: NOTIFICATION_BADGE,
    data: payload.id === undefined ? { url: payload.url } : { url: payload.url, id: payload.id },
  });
  return repeat ? 'repeated' : 'shown';
}

/** The screen a notification opens: its `data.url` when that is an app path, else the feed. */
export function notificationUrl(notification: Pick<Notification, 'data'>): string {
  const url = (notification.data as { url?: unknown } | null)?.url;
  return isAppPath(url) ? url : '/';
}

/**
 * A tap on a notification: closes it, then brings a window of the app forward and tells it which
 * screen to open (the app routes there without a reload), or opens a new window on that screen.
 */
export async function openFromNotification(scope: WorkerScope, url: string): Promise<'focused' | 'opened'> {
  const [target] = await appWindows(scope);
  if (target) {
    // focus() is refused outside the click's short window of user activation: navigate anyway.
    await target.focus().catch(() => undefined);
    target.postMessage({ type: 'navigate', url } satisfies NavigateMessage);
    return 'focused';
  }
  await scope.clients.openWindow(url);
  return 'opened';
}
