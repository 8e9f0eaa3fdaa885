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
    cacheDir: path.resolve(e.IMAGE_CACHE_DIR),
    cacheMaxBytes: e.IMAGE_CACHE_MAX_BYTES,
    timeoutMs: e.IMAGE_PROXY_TIMEOUT_MS,
    allowedIps,
    /** Besides 80 and 443, which are always allowed. */
    allowedPorts,
  };
}
