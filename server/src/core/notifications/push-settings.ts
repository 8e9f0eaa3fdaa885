// Web Push settings (docs/notifications.md), the same in server and worker: the VAPID key pair that
// signs every push (the server hands out the public half for `pushManager.subscribe`, the worker
// signs with the private half), and which push services a subscription may point at.
import { z } from 'zod';
import { parseSettings } from '../settings';

const PushEnvSchema = z.object({
  /** The VAPID key pair (base64url, as `npx web-push generate-vapid-keys` prints it); unset: push is off. */
  VAPID_PUBLIC_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{87}$/, 'must be a base64url P-256 public key (87 characters)')
    .optional(),
  VAPID_PRIVATE_KEY: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a base64url P-256 private key (43 characters)')
    .optional(),
  /** Who push services contact about our pushes: a mailto: or https: address (RFC 8292). */
  VAPID_SUBJECT: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, 'must start with mailto: or https://')
    .default('mailto:privacy@podmatch.app'),
  /**
   * Hosts a subscription's endpoint may name (comma-separated; a leading dot allows subdomains).
   * The browsers' push services by default; the worker posts only to these (no SSRF through an endpoint).
   */
  PUSH_SERVICE_HOSTS: z.string().optional(),
  /** Outside production: push services on this machine (http://127.0.0.1, the tests' stand-in). */
  PUSH_ALLOW_LOOPBACK: z.enum(['true', 'false']).optional(),
  /** At most one notification per conversation in this many seconds (a flood becomes one). */
  PUSH_MESSAGE_COOLDOWN_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
});

/** The push services of Chrome/Edge/Opera (FCM), Firefox (Mozilla autopush), Safari (Apple), Windows (WNS). */
export const DEFAULT_PUSH_SERVICE_HOSTS = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  '.push.apple.com',
  '.notify.windows.com',
];

export interface PushSettings {
  /** Null: no VAPID keys, push notifications are off (the settings screen says so). */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  serviceHosts: string[];
  allowLoopback: boolean;
  /** One notification per conversation in this long; messages after it are announced at its end. */
  messageCooldownMs: number;
}

export function loadPushSettings(env: NodeJS.ProcessEnv, isProduction: boolean): PushSettings {
  const e = parseSettings(PushEnvSchema, env);
  if (Boolean(e.VAPID_PUBLIC_KEY) !== Boolean(e.VAPID_PRIVATE_KEY)) {
    throw new Error('Invalid configuration:\n  VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: set both or neither');
  }
  if (isProduction && e.PUSH_ALLOW_LOOPBACK === 'true') {
    throw new Error('Invalid configuration:\n  PUSH_ALLOW_LOOPBACK: for development and tests only');
  }
  return {
    vapid:
      e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY
        ? { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY, subject: e.VAPID_SUBJECT }
        : null,
    serviceHosts: e.PUSH_SERVICE_HOSTS
      ? e.PUSH_SERVICE_HOSTS.split(',')
          .map((host) => host.trim().toLowerCase())
          .filter(Boolean)
      : DEFAULT_PUSH_SERVICE_HOSTS,
    allowLoopback: !isProduction && e.PUSH_ALLOW_LOOPBACK !== 'false',
    messageCooldownMs: e.PUSH_MESSAGE_COOLDOWN_SECONDS * 1000,
  };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why an endpoint is refused, or null when a push may be posted to it: https on a known push
 * service, or (outside production) http(s) on this machine.
 */
export function endpointProblem(endpoint: string, settings: PushSettings): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.toLowerCase();
  if (settings.allowLoopback && LOOPBACK_HOSTS.has(host)) return null;
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.port && url.port !== '443') return 'must use the standard https port';
  const known = settings.serviceHosts.some((allowed) =>
    allowed.startsWith('.') ? host.endsWith(allowed) && host.length > allowed.length : host === allowed,
  );
  return known ? null : 'is not a known browser push service';
}
