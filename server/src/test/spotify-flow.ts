// Test helpers for the Spotify OAuth flow: a tiny "browser" that follows redirects by hand and
// keeps cookies, a free port, and the server env that points at a Spotify stand-in.
import net from 'node:net';
import type { LoginResponse } from '@shared/index';
import type { SpotifyStandIn } from './spotify-stand-in';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

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

  async get(url: string): Promise<Hop> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    }
    const res = await fetch(url, { redirect: 'manual', headers });
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

/** Connects Spotify to the signed-in user like the profile card does; returns the final SPA URL. */
export async function connectSpotify(
  serverUrl: string,
  token: string,
  browser = new TestBrowser(),
): Promise<{ final: URL; browser: TestBrowser }> {
  const res = await fetch(`${serverUrl}/api/spotify/connect-ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`connect-ticket: ${res.status} ${await res.text()}`);
  const { url } = (await res.json()) as { url: string };
  return { final: await browser.follow(`${serverUrl}${url}`, serverUrl), browser };
}

/** Signs in through Spotify like the login screen does: callback, then the code exchange. */
export async function signInWithSpotify(
  serverUrl: string,
  browser = new TestBrowser(),
): Promise<{ login: LoginResponse; final: URL; exchangeText: string }> {
  const final = await browser.follow(`${serverUrl}/api/auth/spotify`, serverUrl);
  const code = final.searchParams.get('spotify_code');
  if (!code) throw new Error(`sign-in ended at ${final}`);
  const res = await fetch(`${serverUrl}/api/auth/spotify/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const exchangeText = await res.text();
  if (res.status !== 200) throw new Error(`exchange: ${res.status} ${exchangeText}`);
  return { login: JSON.parse(exchangeText) as LoginResponse, final, exchangeText };
}
