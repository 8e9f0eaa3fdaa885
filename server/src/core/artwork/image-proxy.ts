import { createHash } from 'node:crypto';
import type { Logger } from '../logger';
import { checkUrl, FetchRefusedError, type SafeFetchOptions, safeFetch } from '../net/safe-fetch';
import { ImageDiskCache } from './image-cache';
import type { ImageProxyConfig } from './image-proxy-config';
import { type ImageType, isAcceptedImageContentType, sniffImageType } from './image-type';

export const IMAGE_PROXY_RULES = {
  /** The largest image fetched; a bigger answer is cut off. */
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 3,
  /** How long a failed URL answers the placeholder without asking its host again. */
  failureTtlMs: 5 * 60_000,
  /** Failed URLs remembered at most (the oldest is forgotten first). */
  failureEntries: 10_000,
  /** Upstream fetches at once per server; beyond that a new URL gets the placeholder for now. */
  maxConcurrentFetches: 32,
} as const;

export type ImageProxyResult = { ok: true; type: ImageType; body: Buffer } | { ok: false; reason: string };

/**
 * Remote artwork for GET /api/proxy/image (docs/image-proxy.md): fetched through the SSRF-safe
 * fetcher, verified to be a raster image, kept in a bounded disk cache; concurrent requests for one
 * URL share one fetch, and failures are remembered for a while so a dead host is not hammered.
 */
export class ImageProxy {
  private readonly cache: ImageDiskCache;
  private readonly fetchOptions: SafeFetchOptions;
  private readonly inflight = new Map<string, Promise<ImageProxyResult>>();
  /** key -> until when it fails; insertion order is age. */
  private readonly failures = new Map<string, { until: number; reason: string }>();
  private fetching = 0;

  constructor(
    config: ImageProxyConfig,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.cache = new ImageDiskCache(config.cacheDir, config.cacheMaxBytes, logger);
    this.fetchOptions = {
      maxBytes: IMAGE_PROXY_RULES.maxBytes,
      timeoutMs: config.timeoutMs,
      maxRedirects: IMAGE_PROXY_RULES.maxRedirects,
      allowedIps: config.allowedIps,
      ports: [80, 443, ...config.allowedPorts],
      refuseCredentials: true,
      accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9',
      acceptContentType: isAcceptedImageContentType,
    };
  }

  /** The image at `rawUrl`, or why not (the caller answers the placeholder then). */
  get(rawUrl: string): Promise<ImageProxyResult> {
    let url: string;
    try {
      url = checkUrl(rawUrl, this.fetchOptions);
    } catch (error) {
      return Promise.resolve({ ok: false, reason: reasonOf(error) });
    }
    const key = createHash('sha256').update(url).digest('hex');
    const failure = this.failures.get(key);
    if (failure && failure.until > this.now()) return Promise.resolve({ ok: false, reason: failure.reason });
    // From here to `set` nothing awaits, so every concurrent request for the URL shares one promise.
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const result = this.load(url, key).finally(() => this.inflight.delete(key));
    this.inflight.set(key, result);
    return result;
  }

  private async load(url: string, key: string): Promise<ImageProxyResult> {
    const cached = await this.cache.get(key).catch(() => null);
    const cachedType = cached && sniffImageType(cached);
    if (cached && cachedType) return { ok: true, type: cachedType, body: cached };
    if (this.fetching >= IMAGE_PROXY_RULES.maxConcurrentFetches) return { ok: false, reason: 'busy' };
    this.fetching++;
    try {
      const result = await this.fetchImage(url);
      if (result.ok) await this.cache.put(key, result.body).catch(() => {});
      else this.rememberFailure(key, result.reason);
      return result;
    } finally {
      this.fetching--;
    }
  }

  private async fetchImage(url: string): Promise<ImageProxyResult> {
    try {
      const response = await safeFetch(url, this.fetchOptions);
      const type = sniffImageType(response.body);
      if (!type) return { ok: false, reason: 'not a supported image (by its bytes)' };
      return { ok: true, type, body: response.body };
    } catch (error) {
      const reason = reasonOf(error);
      this.logger.debug(`image proxy: ${reason}`, { url: url.slice(0, 200) });
      return { ok: false, reason };
    }
  }

  private rememberFailure(key: string, reason: string): void {
    this.failures.delete(key);
    this.failures.set(key, { until: this.now() + IMAGE_PROXY_RULES.failureTtlMs, reason });
    while (this.failures.size > IMAGE_PROXY_RULES.failureEntries) {
      const oldest = this.failures.keys().next().value;
      if (oldest === undefined) break;
      this.failures.delete(oldest);
    }
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof FetchRefusedError) return error.message;
  return error instanceof Error ? `upstream error: ${error.message}` : 'upstream error';
}
