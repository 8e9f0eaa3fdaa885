import { api } from '@shared/api';
import { endpointUrl, isApiError } from '@/lib/api-client';
import { apiFetch } from '@/lib/http';
import { rememberPushDevice } from './device-storage';

/** The server keeps a focus report for about a minute; a focused tab repeats it this often. */
export const FOCUS_REFRESH_MS = 30_000;

/** Whether this tab is what the person is looking at. */
const isFocused = () => document.visibilityState === 'visible' && document.hasFocus();

/**
 * Tells the server whether this device has a focused tab (docs/notifications.md): the server sends
 * no pushes to a device the person is looking at. A report goes out when that changes (focus, blur,
 * visibility) and, while focused, every FOCUS_REFRESH_MS; `false` on leaving (pagehide, with
 * keepalive so it outlives the page). Returns the function that stops it (and reports `false`).
 */
export function startFocusReports(userId: number, deviceId: number): () => void {
  // The body is sent per report; the URL is the same for both values.
  const url = endpointUrl(api.pushDeviceFocus, { params: { userId, deviceId }, body: { focused: true } });
  let last: boolean | null = null;
  let stopped = false;

  const send = (focused: boolean, keepalive = false) => {
    apiFetch(url, { method: 'PUT', json: { focused }, keepalive }).catch((error: unknown) => {
      // The device was removed (here, elsewhere, or by the server): stop reporting for it.
      if (isApiError(error, 404)) {
        rememberPushDevice(userId, null);
        stop();
      }
    });
  };
  const update = () => {
    if (stopped) return;
    const focused = isFocused();
    if (focused === last) return;
    last = focused;
    send(focused);
  };
  const leave = () => {
    if (last === false) return;
    last = false;
    send(false, true);
  };
  const refresh = setInterval(() => {
    if (!stopped && last === true && isFocused()) send(true);
    else update();
  }, FOCUS_REFRESH_MS);

  const events: [EventTarget, string, () => void][] = [
    [window, 'focus', update],
    [window, 'blur', update],
    [document, 'visibilitychange', update],
    [window, 'pagehide', leave],
    [window, 'pageshow', update],
  ];
  for (const [target, name, handler] of events) target.addEventListener(name, handler);
  update();

  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearInterval(refresh);
    for (const [target, name, handler] of events) target.removeEventListener(name, handler);
  }
  return () => {
    if (stopped) return;
    if (last === true) send(false, true);
    stop();
  };
}
