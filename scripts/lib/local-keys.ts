import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';

/**
 * Spotify and Bluesky tokens are encrypted with TOKEN_ENCRYPTION_KEY (docs/spotify.md,
 * docs/bluesky.md), and image proxy URLs signed with IMAGE_PROXY_KEY (docs/image-proxy.md). For a
 * local run without one, a key is made once per data directory (readable by this user only, like
 * postgres.password), so stored tokens and handed-out URLs survive restarts and every local instance
 * shares them. Production keeps its startup errors: there the keys are the operator's.
 */
export function localKey(
  options: { dataDir: string; log: (line: string) => void },
  variable: 'TOKEN_ENCRYPTION_KEY' | 'IMAGE_PROXY_KEY',
): string | undefined {
  const given = process.env[variable]?.trim();
  const production = (process.env.NODE_ENV ?? 'development') === 'production';
  if (given || production) return given || undefined;
  const { fileName, purpose } = LOCAL_KEYS[variable];
  const file = path.join(options.dataDir, fileName);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    options.log(`Made ${variable} for ${purpose} in ${file}`);
  }
  return fs.readFileSync(file, 'utf8').trim();
}

const LOCAL_KEYS = {
  TOKEN_ENCRYPTION_KEY: { fileName: 'token-encryption.key', purpose: 'Spotify tokens' },
  IMAGE_PROXY_KEY: { fileName: 'image-proxy.key', purpose: 'image proxy URLs' },
} as const;

/**
 * The VAPID key pair of push notifications (docs/notifications.md) for a local run: made once per
 * data directory like the keys above, so browsers' subscriptions survive restarts. Production sets
 * VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY (or runs without push).
 */
export function localVapidKeys(options: { dataDir: string; log: (line: string) => void }): {
  VAPID_PUBLIC_KEY?: string;
  VAPID_PRIVATE_KEY?: string;
} {
  const given = {
    VAPID_PUBLIC_KEY: process.env.VAPID_PUBLIC_KEY?.trim(),
    VAPID_PRIVATE_KEY: process.env.VAPID_PRIVATE_KEY?.trim(),
  };
  const production = (process.env.NODE_ENV ?? 'development') === 'production';
  if (given.VAPID_PUBLIC_KEY || given.VAPID_PRIVATE_KEY || production) return given;
  const file = path.join(options.dataDir, 'vapid-keys.json');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(options.dataDir, { recursive: true });
    fs.writeFileSync(file, JSON.stringify(webpush.generateVAPIDKeys()), { mode: 0o600, flag: 'wx' });
    options.log(`Made VAPID keys for push notifications in ${file}`);
  }
  const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as { publicKey: string; privateKey: string };
  return { VAPID_PUBLIC_KEY: keys.publicKey, VAPID_PRIVATE_KEY: keys.privateKey };
}
