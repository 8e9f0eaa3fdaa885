import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSession } from '@/lib/session';
import { jsonResponse, mockFetch } from '@/test/utils';
import { rememberPushDevice, storedPushDevice } from './device-storage';
import { FOCUS_REFRESH_MS, startFocusReports } from './focus-reporter';

describe('focus reports', () => {
  let focused = true;
  let visibility: DocumentVisibilityState = 'visible';
  beforeEach(() => {
    vi.useFakeTimers();
    focused = true;
    visibility = 'visible';
    vi.spyOn(document, 'hasFocus').mockImplementation(() => focused);
    vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => visibility);
    startSession({ token: 'tok-9', userId: 9 });
  });
  afterEach(() => vi.useRealTimers());

  const reports = (fetch: ReturnType<typeof mockFetch>) =>
    fetch.mock.calls.map(([url, init]) => ({
      url: String(url),
      focused: JSON.parse(String(init?.body)).focused as boolean,
      keepalive: init?.keepalive === true,
    }));

  it('reports a change once, repeats a focused tab every 30 s, and leaves with keepalive', async () => {
    const fetch = mockFetch(() => jsonResponse({ ok: true }));
    const stop = startFocusReports(9, 4);
    expect(reports(fetch)).toEqual([{ url: '/api/users/9/push-devices/4/focus', focused: true, keepalive: false }]);

    // Focus again while focused: nothing new to say.
    window.dispatchEvent(new Event('focus'));
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(FOCUS_REFRESH_MS);
    expect(fetch).toHaveBeenCalledTimes(2);

    focused = false;
    window.dispatchEvent(new Event('blur'));
    expect(reports(fetch).at(-1)).toMatchObject({ focused: false });
    // Unfocused: no refresh.
    await vi.advanceTimersByTimeAsync(FOCUS_REFRESH_MS * 3);
    expect(fetch).toHaveBeenCalledTimes(3);

    focused = true;
    document.dispatchEvent(new Event('visibilitychange'));
    expect(reports(fetch).at(-1)).toMatchObject({ focused: true });
    window.dispatchEvent(new Event('pagehide'));
    expect(reports(fetch).at(-1)).toEqual({
      url: '/api/users/9/push-devices/4/focus',
      focused: false,
      keepalive: true,
    });
    stop();
    expect(fetch).toHaveBeenCalledTimes(5);
  });

  it('stops, and forgets the device, when the server no longer knows it', async () => {
    rememberPushDevice(9, 4);
    const fetch = mockFetch(() => jsonResponse({ error: 'not_found', message: 'No such device.' }, { status: 404 }));
    startFocusReports(9, 4);
    await vi.waitFor(() => expect(storedPushDevice(9)).toBeNull());
    focused = false;
    window.dispatchEvent(new Event('blur'));
    await vi.advanceTimersByTimeAsync(FOCUS_REFRESH_MS * 2);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
