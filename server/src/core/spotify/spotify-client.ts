import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { SpotifyConfig } from './spotify-config';

// Spotify's accounts service (authorization code flow with PKCE) and the few Web API reads the
// library sync needs. No HTTP framework here: the server and the worker both use this module.

/** Library read, playback positions (resume points), and the profile for sign-in. */
/**
 * Only what the sync reads: saved shows and episodes (user-library-read) with their resume points
 * (user-read-playback-position). The profile's id and display name need no scope; email, country and
 * subscription (user-read-email, user-read-private) are never asked for.
 */
export const SPOTIFY_SCOPES = ['user-library-read', 'user-read-playback-position'];

export interface SpotifyTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

/** The refresh token is revoked or expired (`invalid_grant`): only a new consent helps. */
export class SpotifyReconnectError extends Error {
  constructor(message = 'Spotify access was revoked or has expired. Reconnect Spotify.') {
    super(message);
    this.name = 'SpotifyReconnectError';
  }
}

/** Any other failed call to Spotify (status 0 when it could not be reached). */
export class SpotifyApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'SpotifyApiError';
  }
}

export interface SpotifyHttpOptions {
  fetch?: typeof fetch;
  /** Longest Retry-After we honour; a longer one fails the call (the job retries later). */
  maxRetryAfterMs?: number;
  /** How many 429 answers in a row one call may wait out. */
  maxRateLimitRetries?: number;
  timeoutMs?: number;
}

const DEFAULTS = { maxRetryAfterMs: 30_000, maxRateLimitRetries: 5, timeoutMs: 15_000 };

/** A PKCE verifier (43 chars of base64url) and its S256 challenge. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(
  config: Pick<SpotifyConfig, 'accountsUrl' | 'clientId' | 'redirectUri'>,
  input: { state: string; codeChallenge: string },
): string {
  const url = new URL(`${config.accountsUrl}/authorize`);
  url.search = new URLSearchParams({
    client_id: config.clientId ?? '',
    response_type: 'code',
    redirect_uri: config.redirectUri,
    code_challenge_method: 'S256',
    code_challenge: input.codeChallenge,
    state: input.state,
    scope: SPOTIFY_SCOPES.join(' '),
    // Always Spotify's consent page, even when this app was approved before: a person sees which
    // Spotify account they are about to link or sign in with.
    show_dialog: 'true',
  }).toString();
  return url.toString();
}

/** Seconds to wait from a Retry-After header (seconds or an HTTP date); 1 s when absent. */
export function retryAfterMs(header: string | null): number {
  if (!header) return 1000;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1000 : Math.max(0, date - Date.now());
}

/** One HTTP call that waits out 429 answers (Retry-After, capped) before giving up. */
async function send(url: string, init: RequestInit, options: SpotifyHttpOptions): Promise<Response> {
  const o = { ...DEFAULTS, ...options };
  const doFetch = o.fetch ?? fetch;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await doFetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(o.timeoutMs) });
    } catch (error) {
      throw new SpotifyApiError(`Spotify could not be reached: ${(error as Error).message}`, 0);
    }
    if (res.status !== 429) return res;
    const wait = retryAfterMs(res.headers.get('retry-after'));
    await res.body?.cancel();
    if (attempt >= o.maxRateLimitRetries || wait > o.maxRetryAfterMs) {
      throw new SpotifyApiError(`Spotify rate limit: retry after ${Math.ceil(wait / 1000)} s`, 429, 'rate_limited');
    }
    await sleep(wait);
  }
}

const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive(),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
});

async function tokenRequest(
  config: Pick<SpotifyConfig, 'accountsUrl' | 'clientId' | 'clientSecret'>,
  params: Record<string, string>,
  options: SpotifyHttpOptions,
): Promise<z.output<typeof TokenResponseSchema>> {
  if (!config.clientId) throw new SpotifyApiError('Spotify is not configured (SPOTIFY_CLIENT_ID)', 0, 'not_configured');
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(params);
  if (config.clientSecret) {
    headers.authorization = `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`;
  } else {
    body.set('client_id', config.clientId);
  }
  const res = await send(`${config.accountsUrl}/api/token`, { method: 'POST', headers, body }, options);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const error = (json as { error?: unknown } | undefined)?.error;
    const code = typeof error === 'string' ? error : undefined;
    if (code === 'invalid_grant') throw new SpotifyReconnectError();
    throw new SpotifyApiError(
      `Spotify token request failed (${res.status}${code ? ` ${code}` : ''})`,
      res.status,
      code,
    );
  }
  const parsed = TokenResponseSchema.safeParse(json);
  if (!parsed.success) throw new SpotifyApiError('Spotify token response was not understood', res.status);
  return parsed.data;
}

/** Authorization code + PKCE verifier -> tokens. A bad or reused code throws SpotifyReconnectError. */
export async function exchangeCode(
  config: Pick<SpotifyConfig, 'accountsUrl' | 'clientId' | 'clientSecret' | 'redirectUri'>,
  code: string,
  codeVerifier: string,
  options: SpotifyHttpOptions = {},
): Promise<SpotifyTokens> {
  const t = await tokenRequest(
    config,
    { grant_type: 'authorization_code', code, redirect_uri: config.redirectUri, code_verifier: codeVerifier },
    options,
  );
  if (!t.refresh_token) throw new SpotifyApiError('Spotify returned no refresh token', 200);
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: expiry(t.expires_in) };
}

/** Refresh token -> new tokens; Spotify may or may not rotate the refresh token. */
export async function refreshTokens(
  config: Pick<SpotifyConfig, 'accountsUrl' | 'clientId' | 'clientSecret'>,
  refreshToken: string,
  options: SpotifyHttpOptions = {},
): Promise<SpotifyTokens> {
  const t = await tokenRequest(config, { grant_type: 'refresh_token', refresh_token: refreshToken }, options);
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? refreshToken,
    expiresAt: expiry(t.expires_in),
  };
}

const expiry = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** Where the API client gets its access token, and how it renews it after a 401. */
export interface TokenSource {
  accessToken(): Promise<string>;
  /** Returns a fresh access token; throws SpotifyReconnectError when the refresh token is dead. */
  refresh(): Promise<string>;
}

// --- Web API response shapes (only what we read; everything else passes through) ---------------

const ImageSchema = z.object({ url: z.string() });
export const SpotifyShowSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  publisher: z.string().nullish(),
  description: z.string().nullish(),
  images: z.array(ImageSchema).nullish(),
  total_episodes: z.number().int().nullish(),
});
export const SpotifyEpisodeSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  duration_ms: z.number().nullish(),
  release_date: z.string().nullish(),
  release_date_precision: z.enum(['year', 'month', 'day']).nullish(),
  resume_point: z.object({ fully_played: z.boolean().nullish(), resume_position_ms: z.number().nullish() }).nullish(),
  show: SpotifyShowSchema,
});
export const SavedShowSchema = z.object({ added_at: z.string().nullish(), show: SpotifyShowSchema });
export const SavedEpisodeSchema = z.object({ added_at: z.string().nullish(), episode: SpotifyEpisodeSchema });
export const SpotifyProfileSchema = z.object({
  id: z.string().min(1),
  display_name: z.string().nullish(),
  images: z.array(ImageSchema).nullish(),
});

export type SpotifyShow = z.output<typeof SpotifyShowSchema>;
export type SpotifyEpisode = z.output<typeof SpotifyEpisodeSchema>;
export type SavedShow = z.output<typeof SavedShowSchema>;
export type SavedEpisode = z.output<typeof SavedEpisodeSchema>;
export type SpotifyProfile = z.output<typeof SpotifyProfileSchema>;

const PagingSchema = z.object({
  href: z.string().optional(),
  items: z.array(z.unknown()),
  limit: z.number().optional(),
  next: z.string().nullable(),
  offset: z.number().optional(),
  total: z.number().int().min(0),
});

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  /** Items the page held that were null or not understood (e.g. an episode no longer available). */
  skipped: number;
}

/** Web API reads as the user: 401 -> refresh once -> retry; 429 -> wait Retry-After; paging by `next`. */
export class SpotifyApi {
  private readonly origin: string;

  constructor(
    private readonly config: Pick<SpotifyConfig, 'apiUrl'>,
    private readonly tokens: TokenSource,
    private readonly options: SpotifyHttpOptions = {},
  ) {
    this.origin = new URL(config.apiUrl).origin;
  }

  async get(pathOrUrl: string): Promise<unknown> {
    const url = pathOrUrl.startsWith('/') ? `${this.config.apiUrl}${pathOrUrl}` : pathOrUrl;
    // Never send the user's token anywhere but the configured API (paging links come from answers).
    if (new URL(url).origin !== this.origin) throw new SpotifyApiError(`Refusing to follow ${url}`, 0);
    let token = await this.tokens.accessToken();
    let refreshed = false;
    for (;;) {
      const res = await send(
        url,
        { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
        this.options,
      );
      if (res.status === 401 && !refreshed) {
        await res.body?.cancel();
        token = await this.tokens.refresh();
        refreshed = true;
        continue;
      }
      const text = await res.text();
      if (!res.ok) {
        let message = text.slice(0, 200);
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
        } catch {
          // not JSON: keep the text
        }
        if (res.status === 401) throw new SpotifyReconnectError(`Spotify refused the renewed token: ${message}`);
        throw new SpotifyApiError(`Spotify ${new URL(url).pathname} failed (${res.status}): ${message}`, res.status);
      }
      try {
        return JSON.parse(text);
      } catch {
        throw new SpotifyApiError(`Spotify ${new URL(url).pathname} answered with invalid JSON`, res.status);
      }
    }
  }

  async me(): Promise<SpotifyProfile> {
    const parsed = SpotifyProfileSchema.safeParse(await this.get('/me'));
    if (!parsed.success) throw new SpotifyApiError('Spotify profile was not understood', 200);
    return parsed.data;
  }

  /** Every page of a paging endpoint, following `next` until it is null. */
  async *pages<S extends z.ZodType>(path: string, itemSchema: S): AsyncGenerator<Page<z.output<S>>> {
    let next: string | null = path;
    let guard = 0;
    while (next) {
      if (++guard > 1000) throw new SpotifyApiError('Spotify paging did not end', 0);
      const parsed = PagingSchema.safeParse(await this.get(next));
      if (!parsed.success) throw new SpotifyApiError(`Spotify ${path} page was not understood`, 200);
      const items: z.output<S>[] = [];
      for (const raw of parsed.data.items) {
        const item = itemSchema.safeParse(raw);
        if (item.success) items.push(item.data);
      }
      yield {
        items,
        total: parsed.data.total,
        offset: parsed.data.offset ?? 0,
        skipped: parsed.data.items.length - items.length,
      };
      next = parsed.data.items.length > 0 ? parsed.data.next : null;
    }
  }
}
