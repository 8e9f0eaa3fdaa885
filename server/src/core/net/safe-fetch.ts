import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { useAgent as filteringAgentFor } from 'request-filtering-agent';

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  /** Addresses allowed despite being private/loopback (tests point feeds at 127.0.0.1). */
  allowedIps: string[];
  /**
   * Only these ports (the URL's effective port: 80 for http, 443 for https), checked on every hop
   * before connecting. Unset: any port (feeds live on odd ports too).
   */
  ports?: readonly number[];
  /** Refuse (instead of silently dropping) user:password@ in the URL. */
  refuseCredentials?: boolean;
  /** The Accept request header. */
  accept?: string;
  /**
   * Called with the response's Content-Type before its body is read; false cuts the connection. With
   * it, an answer other than 2xx is refused the same way (its body is never read).
   */
  acceptContentType?: (contentType: string) => boolean;
}

/** Podcast feeds are read only from the standard web ports (docs/podcasts.md). */
export const FEED_PORTS = [80, 443] as const;

export const DEFAULT_FETCH_OPTIONS: SafeFetchOptions = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 3,
  allowedIps: [],
};

export class FetchRefusedError extends Error {}

/** Only http(s), no credentials, no fragments; returns the cleaned URL or throws. */
export function normalizeFeedUrl(raw: string): string {
  return checkUrl(raw, {});
}

/** normalizeFeedUrl with the stricter rules of `options` (ports, credentials refused). */
export function checkUrl(raw: string, options: Pick<SafeFetchOptions, 'ports' | 'refuseCredentials'>): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new FetchRefusedError(`Not a valid URL: ${raw.slice(0, 100)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError(`Only http and https feeds are supported: ${url.protocol}`);
  }
  if (options.refuseCredentials && (url.username || url.password)) {
    throw new FetchRefusedError('URLs with credentials are not fetched');
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (options.ports && !options.ports.includes(port)) {
    throw new FetchRefusedError(`Port ${port} is not allowed`);
  }
  // Credentials embedded in exported feed URLs (private feeds) are not ours to keep.
  url.username = '';
  url.password = '';
  url.hash = '';
  const cleaned = url.toString();
  if (cleaned.length > 2048) throw new FetchRefusedError('URL is too long');
  return cleaned;
}

/**
 * GETs a URL as text, refusing loopback, private, link-local and reserved addresses (checked on
 * the resolved address at connect time, so DNS rebinding does not help), with size, time and
 * redirect limits. Redirects are followed by hand so every hop is checked.
 */
export async function safeFetchText(
  rawUrl: string,
  options: SafeFetchOptions = DEFAULT_FETCH_OPTIONS,
): Promise<{ url: string; status: number; contentType: string; body: string }> {
  const response = await safeFetch(rawUrl, options);
  return { ...response, body: response.body.toString('utf8') };
}

/**
 * safeFetchText's rules, returning the raw bytes. `timeoutMs` bounds the whole fetch, redirects
 * included; every hop's URL passes `checkUrl` (ports, credentials) and the address filter again.
 */
export async function safeFetch(
  rawUrl: string,
  options: SafeFetchOptions = DEFAULT_FETCH_OPTIONS,
): Promise<{ url: string; status: number; contentType: string; body: Buffer }> {
  let url = checkUrl(rawUrl, options);
  const deadline = Date.now() + options.timeoutMs;
  for (let hop = 0; hop <= options.maxRedirects; hop++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new FetchRefusedError(`Timed out after ${options.timeoutMs} ms`);
    const response = await requestOnce(url, { ...options, timeoutMs: remaining }, options.timeoutMs);
    if (response.redirect) {
      url = checkUrl(new URL(response.redirect, url).toString(), options);
      continue;
    }
    return { url, status: response.status, contentType: response.contentType, body: response.body };
  }
  throw new FetchRefusedError(`Too many redirects (more than ${options.maxRedirects})`);
}

interface OnceResult {
  status: number;
  contentType: string;
  body: Buffer;
  redirect?: string;
}

function requestOnce(url: string, options: SafeFetchOptions, totalMs: number): Promise<OnceResult> {
  const client = url.startsWith('https:') ? https : http;
  const agent = filteringAgentFor(url, { allowIPAddressList: options.allowedIps, keepAlive: false });
  return new Promise((resolve, reject) => {
    const req = client.get(
      url,
      {
        agent,
        headers: {
          'user-agent': 'PodMatch/0.1 (+feed reader)',
          accept: options.accept ?? 'application/rss+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        timeout: options.timeoutMs,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.destroy(); // a redirect's body is never read (it could be endless)
          resolve({ status, contentType: '', body: Buffer.alloc(0), redirect: res.headers.location });
          return;
        }
        const contentType = String(res.headers['content-type'] ?? '');
        if (options.acceptContentType) {
          const refusal =
            status < 200 || status >= 300
              ? `HTTP ${status}`
              : options.acceptContentType(contentType)
                ? null
                : `Content type not accepted: ${contentType.slice(0, 100) || 'none'}`;
          if (refusal) {
            res.destroy();
            reject(new FetchRefusedError(refusal));
            return;
          }
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > options.maxBytes) {
          res.destroy();
          reject(new FetchRefusedError(`Response is larger than ${options.maxBytes} bytes`));
          return;
        }
        let stream: NodeJS.ReadableStream = res;
        const encoding = res.headers['content-encoding'];
        if (encoding === 'gzip') stream = res.pipe(zlib.createGunzip());
        else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
        else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new FetchRefusedError(`Response is larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        stream.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks) }));
        stream.on('error', reject);
      },
    );
    // Overall deadline, not just idle time: a slow drip must not hold a worker forever.
    const timedOut = () => new FetchRefusedError(`Timed out after ${totalMs} ms`);
    const deadline = setTimeout(() => req.destroy(timedOut()), options.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(timedOut()));
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(/is not allowed/.test(error.message) ? new FetchRefusedError(error.message) : error);
    });
  });
}
