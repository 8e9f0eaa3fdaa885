/**
 * What this browser allows (docs/notifications.md, "Opting in"):
 * - `unsupported`: no service worker, Push API or notifications here;
 * - `ios-install-first`: Safari on an iPhone or iPad pushes only to an app added to the Home Screen;
 * - `denied`: the person blocked notifications for this site (only the browser's settings undo it);
 * - `default`: not asked yet; `granted`: allowed.
 */
export type PushSupport = 'unsupported' | 'ios-install-first' | NotificationPermission;

const isIos = () =>
  /iPhone|iPad|iPod/.test(navigator.userAgent) ||
  (navigator.platform === 'MacIntel' && (navigator.maxTouchPoints ?? 0) > 1);

const isStandalone = () =>
  typeof window.matchMedia === 'function' && window.matchMedia('(display-mode: standalone)').matches;

export function pushSupport(): PushSupport {
  const supported =
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof window !== 'undefined' &&
    'PushManager' in window &&
    'Notification' in window;
  if (!supported) return isIos() && !isStandalone() ? 'ios-install-first' : 'unsupported';
  return Notification.permission;
}
