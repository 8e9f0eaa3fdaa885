// A local stand-in for Spotify's accounts service and the Web API reads we use, following
// reference/spotify-web-api.openapi.yml (paging objects, error objects, 401/429 answers) and the
// authorization code flow with PKCE. Tests start it on a free port; scripts/spotify-stand-in.ts
// runs it for the browser tests. Knobs let a test expire tokens, revoke refresh tokens, rate-limit
// the next calls, deny consent or fail the profile.
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';

export interface StandInShow {
  id: string;
  name: string;
  publisher: string;
  description: string;
  imageUrl: string;
  totalEpisodes: number;
}

export interface StandInEpisode {
  id: string;
  name: string;
  description: string;
  durationMs: number;
  releaseDate: string;
  resumePoint: { fully_played: boolean; resume_position_ms: number };
  show: StandInShow;
  addedAt: string;
}

export interface StandInAccount {
  id: string;
  displayName: string;
  email: string;
  shows: { addedAt: string; show: StandInShow }[];
  episodes: StandInEpisode[];
}

interface CodeGrant {
  accountId: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  /** The scopes asked for at /authorize: the tokens carry these, and the Web API checks them. */
  scopes: string[];
  used: boolean;
}

/** The scopes each Web API path needs (the OpenAPI's `security` of reference/spotify-web-api.openapi.yml). */
const REQUIRED_SCOPES: Record<string, string[]> = {
  '/me/shows': ['user-library-read'],
  '/me/episodes': ['user-library-read', 'user-read-playback-position'],
};

export interface StandInOptions {
  port?: number;
  host?: string;
  clientId?: string;
  /** When set, token requests must authenticate with HTTP Basic client_id:secret. */
  clientSecret?: string;
  accessTokenSeconds?: number;
}

/** A show with every field ShowBase requires. */
export function makeShow(id: string, name: string, extra: Partial<StandInShow> = {}): StandInShow {
  return {
    id,
    name,
    publisher: `${name} Publisher`,
    description: `All about ${name}.`,
    imageUrl: `https://i.scdn.co/image/${id}`,
    totalEpisodes: 100,
    ...extra,
  };
}

export function makeEpisode(
  show: StandInShow,
  id: string,
  extra: Partial<Omit<StandInEpisode, 'show'>> = {},
): StandInEpisode {
  return {
    id,
    name: `${show.name} episode ${id}`,
    description: `Episode ${id} of ${show.name}.`,
    durationMs: 1_800_000,
    releaseDate: '2026-01-15',
    resumePoint: { fully_played: false, resume_position_ms: 0 },
    show,
    addedAt: '2026-02-01T10:00:00Z',
    ...extra,
  };
}

const sha256url = (value: string) => createHash('sha256').update(value).digest('base64url');
const token = () => randomBytes(24).toString('base64url');

export class SpotifyStandIn {
  readonly accounts = new Map<string, StandInAccount>();
  /** The Spotify user "signed in" in the browser: /authorize approves as them. */
  signedInAs: string | null = null;
  /** When set, every approved /authorize signs in as a new account it makes (browser tests). */
  accountFactory: (() => StandInAccount) | null = null;
  /** The next /authorize answers error=access_denied (the user clicks Cancel). */
  denyNextAuthorize = false;
  /** GET /v1/me answers this status while set. */
  failProfileStatus: number | null = null;
  /** Every request, for assertions (e.g. how many pages were read); `at` is when it arrived. */
  readonly requests: { method: string; path: string; status: number; at: number }[] = [];

  private readonly codes = new Map<string, CodeGrant>();
  private readonly accessTokens = new Map<string, { accountId: string; expiresAt: number; scopes: string[] }>();
  private readonly refreshTokens = new Map<string, { accountId: string; revoked: boolean; scopes: string[] }>();
  /** The query of every /authorize request, for assertions (scopes, show_dialog). */
  readonly authorizeRequests: URLSearchParams[] = [];
  /** A 32-byte key for TOKEN_ENCRYPTION_KEY, shared by the server and worker this stand-in serves. */
  readonly tokenKey = randomBytes(32).toString('base64');
  private rateLimited = 0;
  private retryAfterSeconds = 1;
  private server: import('node:http').Server | null = null;
  url = '';

  constructor(private readonly options: StandInOptions = {}) {}

  get clientId(): string {
    return this.options.clientId ?? 'stand-in-client-id';
  }
  get accountsUrl(): string {
    return this.url;
  }
  get apiUrl(): string {
    return `${this.url}/v1`;
  }

  /** Environment for a server/worker that should talk to this stand-in. */
  env(redirectUri: string): Record<string, string> {
    return {
      SPOTIFY_CLIENT_ID: this.clientId,
      ...(this.options.clientSecret ? { SPOTIFY_CLIENT_SECRET: this.options.clientSecret } : {}),
      SPOTIFY_REDIRECT_URI: redirectUri,
      SPOTIFY_ACCOUNTS_URL: this.accountsUrl,
      SPOTIFY_API_URL: this.apiUrl,
      TOKEN_ENCRYPTION_KEY: this.tokenKey,
    };
  }

  addAccount(account: Partial<StandInAccount> & { id: string }): StandInAccount {
    const full: StandInAccount = {
      displayName: account.id,
      email: `${account.id}@example.test`,
      shows: [],
      episodes: [],
      ...account,
    };
    this.accounts.set(full.id, full);
    this.signedInAs ??= full.id;
    return full;
  }

  /** Every access token issued so far now answers 401 "The access token expired". */
  expireAccessTokens(): void {
    for (const t of this.accessTokens.values()) t.expiresAt = 0;
  }
  /** Refresh tokens of this account (all when omitted) now answer invalid_grant. */
  revokeRefreshTokens(accountId?: string): void {
    for (const t of this.refreshTokens.values()) if (!accountId || t.accountId === accountId) t.revoked = true;
  }
  /** The next `count` Web API calls answer 429 with Retry-After. */
  rateLimitNext(count: number, retryAfterSeconds = 1): void {
    this.rateLimited = count;
    this.retryAfterSeconds = retryAfterSeconds;
  }
  /** Whether this string is a live access token (tests check that none leaks). */
  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.refreshTokens.keys()];
  }

  async start(): Promise<this> {
    const app = express();
    app.disable('x-powered-by');
    app.use((req, res, next) => {
      const at = Date.now();
      res.on('finish', () => this.requests.push({ method: req.method, path: req.path, status: res.statusCode, at }));
      next();
    });
    app.get('/authorize', (req, res) => this.authorize(req, res));
    app.post('/api/token', express.urlencoded({ extended: false }), (req, res) => this.tokenEndpoint(req, res));
    app.use('/v1', (req, res, next) => this.guardApi(req, res, next));
    app.get('/v1/me', (req, res) => this.me(req, res));
    app.get('/v1/me/shows', (req, res) => this.paged(req, res, 'shows'));
    app.get('/v1/me/episodes', (req, res) => this.paged(req, res, 'episodes'));
    app.use((_req, res) => apiError(res, 404, 'Service not found'));
    await new Promise<void>((resolve) => {
      this.server = app.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    const address = this.server?.address() as AddressInfo;
    this.url = `http://${this.options.host ?? '127.0.0.1'}:${address.port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // --- accounts service ---------------------------------------------------------------------

  private authorize(req: Request, res: Response) {
    const q = req.query as Record<string, string | undefined>;
    this.authorizeRequests.push(new URLSearchParams(req.url.split('?')[1] ?? ''));
    if (!q.client_id || q.client_id !== this.clientId) return res.status(400).send('INVALID_CLIENT: Invalid client');
    if (!q.redirect_uri) return res.status(400).send('INVALID_CLIENT: Invalid redirect URI');
    if (q.response_type !== 'code') return res.status(400).send('unsupported_response_type');
    if (q.code_challenge_method !== 'S256' || !q.code_challenge) {
      return res.status(400).send('invalid_request: code_challenge_method must be S256');
    }
    const target = new URL(q.redirect_uri);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    const accountId = this.accountFactory ? this.accountFactory().id : this.signedInAs;
    if (this.denyNextAuthorize || !accountId) {
      this.denyNextAuthorize = false;
      target.searchParams.set('error', 'access_denied');
      return res.redirect(302, target.toString());
    }
    const code = token();
    this.codes.set(code, {
      accountId,
      clientId: q.client_id,
      redirectUri: q.redirect_uri,
      challenge: q.code_challenge,
      scopes: (q.scope ?? '').split(' ').filter(Boolean),
      used: false,
    });
    target.searchParams.set('code', code);
    res.redirect(302, target.toString());
  }

  private tokenEndpoint(req: Request, res: Response) {
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    let clientId = body.client_id;
    const basic = /^Basic\s+(.+)$/i.exec(req.get('authorization') ?? '');
    if (basic?.[1]) {
      const [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':');
      if (id !== this.clientId || secret !== this.options.clientSecret) {
        return res.status(400).json({ error: 'invalid_client', error_description: 'Invalid client secret' });
      }
      clientId = id;
    } else if (this.options.clientSecret) {
      return res.status(400).json({ error: 'invalid_client', error_description: 'Invalid client' });
    }
    if (clientId !== this.clientId) {
      return res.status(400).json({ error: 'invalid_client', error_description: 'Invalid client' });
    }
    if (body.grant_type === 'authorization_code') {
      const grant = body.code ? this.codes.get(body.code) : undefined;
      if (!grant || grant.used) {
        return res.status(400).json({ error: 'invalid_grant', error_description: 'Invalid authorization code' });
      }
      grant.used = true;
      if (grant.redirectUri !== body.redirect_uri) {
        return res.status(400).json({ error: 'invalid_grant', error_description: 'Invalid redirect URI' });
      }
      if (!body.code_verifier || sha256url(body.code_verifier) !== grant.challenge) {
        return res.status(400).json({ error: 'invalid_grant', error_description: 'code_verifier was incorrect' });
      }
      const refresh = token();
      this.refreshTokens.set(refresh, { accountId: grant.accountId, revoked: false, scopes: grant.scopes });
      return res.json({ ...this.issueAccess(grant.accountId, grant.scopes), refresh_token: refresh });
    }
    if (body.grant_type === 'refresh_token') {
      const known = body.refresh_token ? this.refreshTokens.get(body.refresh_token) : undefined;
      if (!known || known.revoked) {
        return res.status(400).json({ error: 'invalid_grant', error_description: 'Refresh token revoked' });
      }
      return res.json(this.issueAccess(known.accountId, known.scopes));
    }
    return res.status(400).json({ error: 'unsupported_grant_type', error_description: 'grant_type must be set' });
  }

  private issueAccess(accountId: string, scopes: string[]) {
    const access = token();
    const seconds = this.options.accessTokenSeconds ?? 3600;
    this.accessTokens.set(access, { accountId, expiresAt: Date.now() + seconds * 1000, scopes });
    return { access_token: access, token_type: 'Bearer', expires_in: seconds, scope: scopes.join(' ') };
  }

  // --- Web API --------------------------------------------------------------------------------

  private guardApi(req: Request, res: Response, next: () => void) {
    if (this.rateLimited > 0) {
      this.rateLimited--;
      res.setHeader('Retry-After', String(this.retryAfterSeconds));
      return apiError(res, 429, 'API rate limit exceeded');
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const known = bearer ? this.accessTokens.get(bearer) : undefined;
    if (!known) return apiError(res, 401, bearer ? 'Invalid access token' : 'No token provided');
    if (known.expiresAt <= Date.now()) return apiError(res, 401, 'The access token expired');
    const needed = REQUIRED_SCOPES[req.path.replace(/^\/v1/, '')] ?? [];
    if (needed.some((scope) => !known.scopes.includes(scope))) return apiError(res, 403, 'Insufficient client scope');
    res.locals.accountId = known.accountId;
    res.locals.scopes = known.scopes;
    next();
  }

  private account(res: Response): StandInAccount {
    const account = this.accounts.get(res.locals.accountId as string);
    if (!account) throw new Error('stand-in: token of an unknown account');
    return account;
  }

  private me(_req: Request, res: Response) {
    if (this.failProfileStatus) return apiError(res, this.failProfileStatus, 'Profile unavailable');
    const a = this.account(res);
    res.json({
      id: a.id,
      display_name: a.displayName,
      // Only with user-read-email, as on Spotify (we never ask for it).
      ...((res.locals.scopes as string[]).includes('user-read-email') ? { email: a.email } : {}),
      country: 'SE',
      product: 'premium',
      type: 'user',
      uri: `spotify:user:${a.id}`,
      href: `${this.apiUrl}/users/${a.id}`,
      external_urls: { spotify: `https://open.spotify.com/user/${a.id}` },
      followers: { href: null, total: 0 },
      images: [],
    });
  }

  private paged(req: Request, res: Response, kind: 'shows' | 'episodes') {
    const limit = req.query.limit === undefined ? 20 : Number(req.query.limit);
    const offset = req.query.offset === undefined ? 0 : Number(req.query.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 50) return apiError(res, 400, 'Invalid limit');
    if (!Number.isInteger(offset) || offset < 0) return apiError(res, 400, 'Invalid offset');
    const a = this.account(res);
    const all =
      kind === 'shows'
        ? a.shows.map((s) => ({ added_at: s.addedAt, show: showObject(s.show, this.apiUrl) }))
        : a.episodes.map((e) => ({ added_at: e.addedAt, episode: episodeObject(e, this.apiUrl) }));
    const base = `${this.apiUrl}/me/${kind}`;
    const link = (o: number) => `${base}?offset=${o}&limit=${limit}`;
    res.json({
      href: link(offset),
      items: all.slice(offset, offset + limit),
      limit,
      next: offset + limit < all.length ? link(offset + limit) : null,
      offset,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      total: all.length,
    });
  }
}

function apiError(res: Response, status: number, message: string) {
  res.status(status).json({ error: { status, message } });
}

function showObject(s: StandInShow, apiUrl: string) {
  return {
    available_markets: ['SE', 'US'],
    copyrights: [],
    description: s.description,
    html_description: `<p>${s.description}</p>`,
    explicit: false,
    external_urls: { spotify: `https://open.spotify.com/show/${s.id}` },
    href: `${apiUrl}/shows/${s.id}`,
    id: s.id,
    images: [
      { url: s.imageUrl, height: 640, width: 640 },
      { url: `${s.imageUrl}?size=300`, height: 300, width: 300 },
    ],
    is_externally_hosted: false,
    languages: ['en'],
    media_type: 'audio',
    name: s.name,
    publisher: s.publisher,
    type: 'show',
    uri: `spotify:show:${s.id}`,
    total_episodes: s.totalEpisodes,
  };
}

function episodeObject(e: StandInEpisode, apiUrl: string) {
  return {
    audio_preview_url: null,
    description: e.description,
    html_description: `<p>${e.description}</p>`,
    duration_ms: e.durationMs,
    explicit: false,
    external_urls: { spotify: `https://open.spotify.com/episode/${e.id}` },
    href: `${apiUrl}/episodes/${e.id}`,
    id: e.id,
    images: [{ url: e.show.imageUrl, height: 640, width: 640 }],
    is_externally_hosted: false,
    is_playable: true,
    languages: ['en'],
    name: e.name,
    release_date: e.releaseDate,
    release_date_precision: 'day',
    resume_point: e.resumePoint,
    type: 'episode',
    uri: `spotify:episode:${e.id}`,
    show: showObject(e.show, apiUrl),
  };
}
