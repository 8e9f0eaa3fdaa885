import { PushPayloadSchema } from '@shared/schemas/notifications';
import { describe, expect, it, vi } from 'vitest';
import {
  type AppWindow,
  handlePush,
  NOTIFICATION_BADGE,
  NOTIFICATION_ICON,
  notificationUrl,
  openFromNotification,
  parsePushPayload,
  type WorkerScope,
} from './push-handlers';

function fakeWindow(state: Partial<Pick<AppWindow, 'focused' | 'visibilityState'>> = {}) {
  return {
    focused: false,
    visibilityState: 'hidden' as DocumentVisibilityState,
    url: 'http://localhost/',
    ...state,
    focus: vi.fn(async () => undefined),
    postMessage: vi.fn(),
  };
}

/** A worker scope whose notifications live in an array, with the given windows open. */
function fakeScope(windows: ReturnType<typeof fakeWindow>[] = []) {
  const shown: { title: string; options: NotificationOptions & { renotify?: boolean }; close: () => void }[] = [];
  const scope = {
    registration: {
      showNotification: vi.fn(async (title: string, options: NotificationOptions & { renotify?: boolean } = {}) => {
        const entry = {
          title,
          options,
          tag: options.tag ?? '',
          close: () => shown.splice(shown.indexOf(entry), 1),
        };
        shown.push(entry);
      }),
      getNotifications: vi.fn(async (filter?: { tag?: string }) =>
        shown
          .filter((n) => filter?.tag === undefined || n.options.tag === filter.tag)
          .map((n) => ({ ...n, tag: n.options.tag ?? '', data: n.options.data })),
      ),
    },
    clients: {
      matchAll: vi.fn(async () => windows),
      openWindow: vi.fn(async () => null),
    },
  } satisfies WorkerScope;
  return { scope, shown };
}

const message = {
  type: 'show',
  kind: 'messages',
  tag: 'chat-41',
  title: 'Zoe',
  body: 'Zoe sent you a message',
  url: '/chat/41',
} as const;

describe('parsePushPayload', () => {
  it('accepts what the shared contract accepts, and nothing it refuses', () => {
    const samples: unknown[] = [
      message,
      { type: 'show', kind: 'matches', tag: 'match-3', title: "It's a match", body: 'You and Ana', url: '/matches' },
      { type: 'show', kind: 'videos', tag: 'video', title: 'Your video is ready', body: '', url: '/profile' },
      { type: 'clear', tag: 'chat-41' },
      { ...message, id: 'push:messages:41' },
      { ...message, kind: 'likes' },
      { ...message, id: 41 },
      { ...message, id: 'x'.repeat(201) },
      { ...message, url: 'https://evil.example/' },
      { ...message, title: 7 },
      { type: 'clear' },
      { type: 'other', tag: 'x' },
      [],
      null,
      'text',
    ];
    for (const sample of samples) {
      const ours = parsePushPayload(JSON.stringify(sample));
      const contract = PushPayloadSchema.safeParse(sample);
      expect(ours !== null, JSON.stringify(sample)).toBe(contract.success);
      if (contract.success) expect(ours).toEqual(contract.data);
    }
  });

  it('ignores what is not JSON, and a path that leaves the origin', () => {
    expect(parsePushPayload('not json')).toBeNull();
    expect(parsePushPayload('')).toBeNull();
    expect(parsePushPayload(undefined)).toBeNull();
    expect(parsePushPayload(JSON.stringify({ ...message, url: '//evil.example/chat' }))).toBeNull();
  });
});

describe('handlePush', () => {
  it('shows a message notification with its tag, icon, badge and screen, alerting again for a new message', async () => {
    const { scope, shown } = fakeScope([fakeWindow()]);
    expect(await handlePush(scope, JSON.stringify(message))).toBe('shown');
    expect(shown).toHaveLength(1);
    expect(shown[0]?.title).toBe('Zoe');
    expect(shown[0]?.options).toEqual({
      body: 'Zoe sent you a message',
      tag: 'chat-41',
      renotify: true,
      icon: NOTIFICATION_ICON,
      badge: NOTIFICATION_BADGE,
      data: { url: '/chat/41' },
    });
    await handlePush(scope, JSON.stringify({ ...message, kind: 'matches', tag: 'match-2', url: '/matches' }));
    expect(shown[1]?.options.renotify).toBe(false);
  });

  it('shows the same notification again (a restarted worker sent it twice) without alerting twice', async () => {
    const { scope, shown } = fakeScope([fakeWindow()]);
    const first = { ...message, id: 'push:messages:41:a' };
    expect(await handlePush(scope, JSON.stringify(first))).toBe('shown');
    expect(shown[0]?.options).toMatchObject({ renotify: true, data: { url: '/chat/41', id: first.id } });
    expect(await handlePush(scope, JSON.stringify(first))).toBe('repeated');
    expect(shown[1]?.options.renotify).toBe(false);
    // A new notification of the conversation (another job) alerts again.
    expect(await handlePush(scope, JSON.stringify({ ...first, id: 'push:messages:41:b' }))).toBe('shown');
    expect(shown[2]?.options.renotify).toBe(true);
  });

  it('shows nothing while a window of the app is focused', async () => {
    const { scope, shown } = fakeScope([fakeWindow(), fakeWindow({ focused: true, visibilityState: 'visible' })]);
    expect(await handlePush(scope, JSON.stringify(message))).toBe('skipped');
    expect(shown).toHaveLength(0);
  });

  it("'clear' closes the notifications of its tag only", async () => {
    const { scope, shown } = fakeScope();
    await handlePush(scope, JSON.stringify(message));
    await handlePush(scope, JSON.stringify({ ...message, tag: 'chat-7', url: '/chat/7' }));
    expect(await handlePush(scope, JSON.stringify({ type: 'clear', tag: 'chat-41' }))).toBe('cleared');
    expect(shown.map((n) => n.options.tag)).toEqual(['chat-7']);
  });

  it('ignores a payload it does not understand', async () => {
    const { scope, shown } = fakeScope();
    expect(await handlePush(scope, '{"type":"show"}')).toBe('ignored');
    expect(shown).toHaveLength(0);
  });
});

describe('a tap on a notification', () => {
  it('brings the focused or visible window forward and tells it which screen to open', async () => {
    const hidden = fakeWindow();
    const visible = fakeWindow({ visibilityState: 'visible' });
    const { scope } = fakeScope([hidden, visible]);
    expect(await openFromNotification(scope, '/chat/41')).toBe('focused');
    expect(visible.focus).toHaveBeenCalled();
    expect(visible.postMessage).toHaveBeenCalledWith({ type: 'navigate', url: '/chat/41' });
    expect(hidden.postMessage).not.toHaveBeenCalled();
    expect(scope.clients.openWindow).not.toHaveBeenCalled();
  });

  it('still routes a window that may not be focused from here', async () => {
    const window = fakeWindow();
    window.focus.mockRejectedValue(new Error('Not allowed to focus a window.'));
    const { scope } = fakeScope([window]);
    expect(await openFromNotification(scope, '/matches')).toBe('focused');
    expect(window.postMessage).toHaveBeenCalledWith({ type: 'navigate', url: '/matches' });
  });

  it('opens a new window on that screen when none is open', async () => {
    const { scope } = fakeScope([]);
    expect(await openFromNotification(scope, '/chat/41')).toBe('opened');
    expect(scope.clients.openWindow).toHaveBeenCalledWith('/chat/41');
  });

  it("opens the notification's own app path, or the feed for anything else", () => {
    expect(notificationUrl({ data: { url: '/chat/41' } })).toBe('/chat/41');
    expect(notificationUrl({ data: { url: 'https://evil.example/' } })).toBe('/');
    expect(notificationUrl({ data: null })).toBe('/');
  });
});
