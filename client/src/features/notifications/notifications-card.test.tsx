import type { NotificationSettings } from '@shared/schemas/notifications';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { startSession } from '@/lib/session';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { deviceLabel } from './device-label';
import { storedPushDevice } from './device-storage';
import { NotificationsCard } from './notifications-card';

const KEY = 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U';

const SETTINGS: NotificationSettings = {
  preferences: { matches: true, messages: true, videos: true, previews: false, paused: false, quietHours: null },
  devices: [{ id: 3, deviceLabel: 'Firefox on Windows', createdAt: '2026-11-20T10:00:00Z', lastUsedAt: null }],
  vapidPublicKey: KEY,
};

/** A browser with the Push API: permission `permission`, asking answers `answer`. */
function pushBrowser({ permission = 'default', answer = 'granted' }: { permission?: string; answer?: string } = {}) {
  const subscription = {
    endpoint: 'https://push.example/send/abc',
    options: { applicationServerKey: null },
    toJSON: () => ({
      endpoint: 'https://push.example/send/abc',
      expirationTime: null,
      keys: { p256dh: 'BPk', auth: 'AuT' },
    }),
    unsubscribe: vi.fn(async () => true),
  };
  const pushManager = {
    getSubscription: vi.fn(async () => null),
    subscribe: vi.fn(async (_options: PushSubscriptionOptionsInit) => subscription),
  };
  const registration = { pushManager };
  const notification = Object.assign(class {}, {
    permission,
    requestPermission: vi.fn(async () => {
      notification.permission = answer;
      return answer;
    }),
  });
  vi.stubGlobal('Notification', notification);
  vi.stubGlobal('PushManager', class {});
  vi.stubGlobal(
    'navigator',
    Object.create(navigator, {
      userAgent: {
        value:
          'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
      },
      serviceWorker: { value: { ready: Promise.resolve(registration), getRegistration: async () => registration } },
    }),
  );
  return { pushManager, notification, subscription };
}

function serve(
  settings: NotificationSettings,
  extra: (url: string, init: RequestInit) => Response | undefined = () => undefined,
) {
  const calls: { method: string; url: string; body: unknown }[] = [];
  mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    calls.push({ method, url, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const answer = extra(url, init);
    if (answer) return answer;
    if (url === '/api/users/9/notifications' && method === 'GET') return jsonResponse(settings);
    return jsonResponse({ error: 'not_found', message: 'No such thing.' }, { status: 404 });
  });
  return calls;
}

describe('NotificationsCard', () => {
  it('turns notifications on for this device: permission, subscription with the key, registration', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    const { pushManager, notification } = pushBrowser();
    const calls = serve(SETTINGS, (url, init) =>
      url === '/api/users/9/push-devices' && init.method === 'POST'
        ? jsonResponse({
            id: 12,
            deviceLabel: 'Chrome on Android',
            createdAt: new Date().toISOString(),
            lastUsedAt: null,
          })
        : undefined,
    );
    renderWithProviders(<NotificationsCard userId={9} />);
    await waitFor(() => expect(screen.getByTestId('notifications-state').textContent).toBe('Off for this device'));
    fireEvent.click(await screen.findByRole('button', { name: 'Turn on notifications on this device' }));

    await waitFor(() => expect(screen.getByTestId('notifications-state').textContent).toBe('On for this device'));
    expect(notification.requestPermission).toHaveBeenCalledOnce();
    const options = pushManager.subscribe.mock.calls[0]?.[0] as PushSubscriptionOptionsInit;
    expect(options.userVisibleOnly).toBe(true);
    expect((options.applicationServerKey as Uint8Array).byteLength).toBe(65);
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      endpoint: 'https://push.example/send/abc',
      expirationTime: null,
      keys: { p256dh: 'BPk', auth: 'AuT' },
      deviceLabel: 'Chrome on Android',
    });
    expect(storedPushDevice(9)).toBe(12);
    const list = screen.getByRole('list', { name: 'Devices that get notifications' });
    expect(
      within(list)
        .getAllByTestId('push-device')
        .map((d) => d.textContent),
    ).toEqual([
      expect.stringContaining('Firefox on Windows'),
      expect.stringContaining('Chrome on Android · this device'),
    ]);
    expect(screen.queryByRole('button', { name: 'Turn on notifications on this device' })).toBeNull();
  });

  it('says how to undo a refusal when the person blocks notifications', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    const { pushManager } = pushBrowser({ answer: 'denied' });
    serve(SETTINGS);
    renderWithProviders(<NotificationsCard userId={9} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Turn on notifications on this device' }));
    const notice = await screen.findByTestId('notifications-notice');
    expect(notice.textContent).toContain('Notifications are blocked');
    expect(notice.textContent).toContain('set Notifications to Allow');
    expect(pushManager.subscribe).not.toHaveBeenCalled();
  });

  it('explains a browser without push, and a server without it', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    // happy-dom has no Push API.
    serve(SETTINGS);
    const first = renderWithProviders(<NotificationsCard userId={9} />);
    expect((await screen.findByTestId('notifications-notice')).textContent).toContain('Not available in this browser');
    expect(screen.queryByRole('button', { name: /Turn on/ })).toBeNull();
    first.unmount();

    pushBrowser();
    serve({ ...SETTINGS, vapidPublicKey: null });
    renderWithProviders(<NotificationsCard userId={9} />);
    expect((await screen.findByTestId('notifications-notice')).textContent).toContain(
      'Push notifications are off on this server',
    );
    expect(screen.getByTestId('notifications-state').textContent).toBe('Not available on this server');
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('saves what to send and quiet hours in the browser time zone: saving, saved, and a refusal', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    pushBrowser();
    let refuse = true;
    const calls = serve(SETTINGS, (url, init) => {
      if (url !== '/api/users/9/notifications/preferences' || init.method !== 'PUT') return undefined;
      if (refuse)
        return jsonResponse(
          { error: 'rate_limited', message: 'Too many changes. Try again in a minute.' },
          { status: 429 },
        );
      return jsonResponse(JSON.parse(String(init.body)));
    });
    renderWithProviders(<NotificationsCard userId={9} />);
    const save = await screen.findByRole('button', { name: 'Save' });
    expect(save).toHaveProperty('disabled', true);

    fireEvent.click(screen.getByRole('switch', { name: 'Show message text in notifications' }));
    fireEvent.click(screen.getByRole('switch', { name: 'Video intro ready' }));
    fireEvent.click(screen.getByRole('switch', { name: 'Quiet hours' }));
    expect(screen.getByTestId('notifications-save-state').textContent).toBe('Not saved yet');
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect((screen.getByRole('combobox', { name: 'Time zone' }) as HTMLSelectElement).value).toBe(zone);
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '23:30' } });

    fireEvent.click(save);
    // The alert is always there (empty until a problem): wait for its text, not for the element.
    await waitFor(() =>
      expect(screen.getByTestId('notifications-problem').textContent).toBe('Too many changes. Try again in a minute.'),
    );
    refuse = false;
    fireEvent.click(save);
    await waitFor(() => expect(screen.getByTestId('notifications-save-state').textContent).toBe('Saved'));
    expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({
      matches: true,
      messages: true,
      videos: false,
      previews: true,
      paused: false,
      quietHours: { start: '23:30', end: '07:00', timeZone: zone },
    });
    expect(screen.getByTestId('notifications-problem').textContent).toBe('');
  });

  it('removes a device from the account; this one also stops its subscription', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    const { subscription, pushManager } = pushBrowser({ permission: 'granted' });
    pushManager.getSubscription.mockResolvedValue(subscription as never);
    localStorage.setItem('podmatch.pushDevice.9', '3');
    const calls = serve(SETTINGS, (url, init) =>
      url === '/api/users/9/push-devices/3' && init.method === 'DELETE' ? jsonResponse({ ok: true }) : undefined,
    );
    renderWithProviders(<NotificationsCard userId={9} />);
    await waitFor(() => expect(screen.getByTestId('notifications-state').textContent).toBe('On for this device'));
    fireEvent.click(screen.getByRole('button', { name: 'Remove Firefox on Windows (this device)' }));
    await waitFor(() => expect(screen.queryByTestId('push-device')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
    expect(subscription.unsubscribe).toHaveBeenCalled();
    expect(storedPushDevice(9)).toBeNull();
    expect(screen.getByTestId('notifications-state').textContent).toBe('Off for this device');
  });
});

describe('deviceLabel', () => {
  it('names the browser and the system', () => {
    expect(
      deviceLabel(
        'Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
      ),
    ).toBe('Chrome on Android');
    expect(
      deviceLabel(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
      ),
    ).toBe('Safari on iPhone');
    expect(deviceLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0')).toBe(
      'Firefox on Windows',
    );
    expect(
      deviceLabel(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
      ),
    ).toBe('Edge on Windows');
    expect(deviceLabel('curl/8.0')).toBe('Browser');
  });
});
