import path from 'node:path';
import { z } from 'zod';

/** The image proxy's settings (docs/image-proxy.md), read by the server and the worker (video artwork). */
export const ImageProxyEnvSchema = z.object({
  IMAGE_CACHE_DIR: z.string().default('.data/image-cache'),
  IMAGE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(256 * 1024 * 1024),
  IMAGE_PROXY_TIMEOUT_MS: z.coerce.number().int().positive().max(60_000).default(5000),
  /** Development and tests only: private/loopback addresses, and extra ports, the proxy may reach. */
  IMAGE_PROXY_ALLOWED_IPS: z.string().default(''),
  IMAGE_PROXY_ALLOWED_PORTS: z.string().default(''),
  /** The key of the proxy URLs' signatures (artwork-urls.ts), shared by every server and worker. */
  IMAGE_PROXY_KEY: z.string().trim().optional(),
});

export type ImageProxyConfig = ReturnType<typeof loadImageProxyConfig>;

/** The allow-lists exist for tests and are refused in production. */
export function loadImageProxyConfig(e: z.infer<typeof ImageProxyEnvSchema>, isProduction: boolean) {
  const list = (value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const allowedIps = list(e.IMAGE_PROXY_ALLOWED_IPS);
  const allowedPorts = list(e.IMAGE_PROXY_ALLOWED_PORTS).map(Number);
  if (allowedPorts.some((port) => !Number.isInteger(port) || port < 1 || port > 65535)) {
    throw new Error('Invalid configuration:\n  IMAGE_PROXY_ALLOWED_PORTS: comma-separated port numbers');
  }
  if (isProduction && (allowedIps.length > 0 || allowedPorts.length > 0)) {
    throw new Error(
      'Invalid configuration:\n  IMAGE_PROXY_ALLOWED_IPS / IMAGE_PROXY_ALLOWED_PORTS are for development and tests only',
    );
  }
  return {
    key: parseImageProxyKey(e.IMAGE_PROXY_KEY),
    cacheDir: path.resolve(e.IMAGE_CACHE_DIR),
    cacheMaxBytes: e.IMAGE_CACHE_MAX_BYTES,
    timeoutMs: e.IMAGE_PROXY_TIMEOUT_MS,
    allowedIps,
    /** Besides 80 and 443, which are always allowed. */
    allowedPorts,
  };
}

const KEY_HELP = '32 bytes, as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)';

/**
 * IMAGE_PROXY_KEY, in every mode: without it the proxy cannot tell its own URLs from anyone's, and a
 * key of this process alone would break the URLs another server instance handed out. `npm start`
 * makes one for local runs (docs/image-proxy.md, "Signed URLs").
 */
function parseImageProxyKey(value: string | undefined): Buffer {
  if (!value) {
    throw new Error(
      `Invalid configuration:\n  IMAGE_PROXY_KEY: required, the same for every server and worker (${KEY_HELP})`,
    );
  }
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`Invalid configuration:\n  IMAGE_PROXY_KEY: must be ${KEY_HELP}`);
  return key;
}
