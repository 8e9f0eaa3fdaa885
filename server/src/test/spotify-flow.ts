// Test helpers for the Spotify OAuth flow: a tiny "browser" that follows redirects by hand and
// keeps cookies, a free port, and the server env that points at a Spotify stand-in.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LoginResponse } from '@shared/index';
import { identityOf, UserSchema } from '../core/db/entities';
import type { SpotifyStandIn } from './spotify-stand-in';

// Below the ephemeral range, so an outgoing connection cannot take it before its server binds it.
export { freePort } from '../../../scripts/lib/local-stack';

/** PORT and SPOTIFY_* for a test server on a known port that talks to this stand-in. */
export function spotifyServerEnv(standIn: SpotifyStandIn, port: number): Record<string, string> {
  return { PORT: String(port), ...standIn.env(`http://localhost:${port}/api/spotify/callback`) };
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
  text: string;
}

/** One browser: a cookie jar (name -> value; paths ignored) and manual redirects. */
export class TestBrowser {
  readonly cookies = new Map<string, string>();
  readonly hops: Hop[] = [];

  /** `headers` go with every request (e.g. the X-Forwarded-For a proxy in front would add). */
  constructor(private readonly headers: Record<string, string> = {}) {}

  async get(url: string): Promise<Hop> {
    return this.request(url, { method: 'GET' });
  }

  /** A JSON POST from this browser's page (its cookies go along, as with fetch on the same origin). */
  async post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Hop & { json: unknown }> {
    const hop = await this.request(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });
    return { ...hop, json: hop.text ? JSON.parse(hop.text) : undefined };
  }

  private async request(url: string, init: { method: string; body?: string; headers?: Record<string, string> }) {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    }
    const res = await fetch(url, { redirect: 'manual', method: init.method, body: init.body, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = decodeURIComponent(pair.slice(eq + 1).trim());
      const expired = attrs.some((a) => {
        const [k, v] = a.trim().split('=');
        if (k?.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k?.toLowerCase() === 'expires') return Date.parse(v ?? '') <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.get('location');
    const hop = {
      url,
      status: res.status,
      location: location ? new URL(location, url).toString() : null,
      text: await res.text(),
    };
    this.hops.push(hop);
    return hop;
  }

  /** Follows redirects until one leaves for `stopAt` (an origin, e.g. the app) with an SPA path. */
  async follow(url: string, appOrigin: string, maxHops = 6): Promise<URL> {
    let next = url;
    for (let i = 0; i < maxHops; i++) {
      const hop = await this.get(next);
      if (!hop.location) throw new Error(`no redirect from ${next}: ${hop.status} ${hop.text.slice(0, 200)}`);
      const target = new URL(hop.location);
      if (target.origin === appOrigin && !target.pathname.startsWith('/api/')) return target;
      next = hop.location;
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

/** Asks for a connect ticket as the signed-in user: the URL the profile card navigates to. */
export async function connectTicket(serverUrl: string, token: string): Promise<string> {
  const res = await fetch(`${serverUrl}/api/spotify/connect-ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`connect-ticket: ${res.status} ${await res.text()}`);
  return `${serverUrl}${((await res.json()) as { url: string }).url}`;
}

/**
 * Connects Spotify like the profile card does: ticket, consent, and back on /profile the page claims
 * the result with the signed-in token (`finishToken`, the starter's unless a test says otherwise).
 * Returns the SPA URL Spotify's round trip ended at and the claim's answer (none when it ended in an
 * error).
 */
export async function connectSpotify(
  serverUrl: string,
  token: string,
  options: { browser?: TestBrowser; finishToken?: string } = {},
): Promise<{ final: URL; browser: TestBrowser; finish?: Hop & { json: unknown } }> {
  const browser = options.browser ?? new TestBrowser();
  const final = await browser.follow(await connectTicket(serverUrl, token), serverUrl);
  const code = final.searchParams.get('spotify_connect');
  if (!code) return { final, browser };
  const finish = await browser.post(
    `${serverUrl}/api/spotify/connect/finish`,
    { code },
    { authorization: `Bearer ${options.finishToken ?? token}` },
  );
  return { final, browser, finish };
}

/** Signs in through Spotify like the login screen does: callback, then the code exchange. */
export async function signInWithSpotify(
  serverUrl: string,
  browser = new TestBrowser(),
): Promise<{ login: LoginResponse; final: URL; exchangeText: string }> {
  const final = await browser.follow(`${serverUrl}/api/auth/spotify`, serverUrl);
  const code = final.searchParams.get('spotify_code');
  if (!code) throw new Error(`sign-in ended at ${final}`);
  // The page's fetch: same origin, so the browser's cookies go along.
  const res = await browser.post(`${serverUrl}/api/auth/spotify/exchange`, { code });
  if (res.status !== 200) throw new Error(`exchange: ${res.status} ${res.text}`);
  return { login: res.json as LoginResponse, final, exchangeText: res.text };
}

/** A person's Spotify link as stored (their Spotify identity in user_identities), by its old names. */
export interface StoredSpotifyLink {
  id: number;
  spotifyId: string | null;
  spotifyAccessToken: string | null;
  spotifyRefreshToken: string | null;
  spotifyTokenExpiry: Date | null;
  lastSpotifySync: Date | null;
}

export async function spotifyLinkOf(em: EntityManager, userId: number): Promise<StoredSpotifyLink> {
  const user = await em.findOneOrFail(UserSchema, userId);
  const identity = identityOf(user, 'spotify');
  return {
    id: user.id,
    spotifyId: identity?.subject ?? null,
    spotifyAccessToken: identity?.accessToken ?? null,
    spotifyRefreshToken: identity?.refreshToken ?? null,
    spotifyTokenExpiry: identity?.expiresAt ?? null,
    lastSpotifySync: identity?.syncedAt ?? null,
  };
}
