// A local stand-in for the AT Protocol network a Bluesky link talks to (docs/bluesky.md): a PLC
// directory (`GET /{did}`), a handle resolver (XRPC com.atproto.identity.resolveHandle), and a PDS
// that is its own OAuth authorization server (protected-resource and authorization-server
// metadata, PAR, authorize, token, revoke), on one origin. It speaks the real contracts and checks
// what a real server checks: DPoP proofs (signature, htm/htu, jti replay, server nonces), PKCE,
// one-time codes and request URIs, single-use rotating refresh tokens bound to the DPoP key.
// /oauth/authorize approves at once as the account named by the PAR's login_hint (no consent UI).
//
// Accounts: any handle under `.test` resolves (made on first use, with a did:plc derived from it);
// a handle under `.unclaimed.test` resolves to a DID whose document claims another handle.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, EmbeddedJWK, type JWK, jwtVerify } from 'jose';

interface Account {
  did: string;
  handle: string;
  /** The handle the DID document claims (alsoKnownAs); another one for unclaimed handles. */
  claimed: string;
}

interface Grant {
  params: Record<string, string>;
  jkt: string;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A did:plc of 24 base32 characters, derived from the handle so runs are reproducible. */
export function standInDid(handle: string): string {
  const digest = createHash('sha256').update(handle).digest();
  return `did:plc:${Array.from(digest.subarray(0, 24), (b) => BASE32[b % 32]).join('')}`;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.error));
  }
}

export class AtprotoStandIn {
  url = '';
  /** When set, /oauth/authorize approves as this handle whatever was typed (someone signing in as another account). */
  approveAs: string | null = null;
  /** Access tokens live this long (expires_in); short values make clients refresh. */
  accessTtlSeconds = 3600;
  /** Every request, as "METHOD /path" (grant types for /oauth/token), for assertions. */
  readonly requests: string[] = [];
  /** Every token pair handed out, so tests can look for them where they must never appear. */
  readonly issued: { sub: string; accessToken: string; refreshToken: string }[] = [];
  private readonly server: http.Server;
  private readonly accounts = new Map<string, Account>();
  private readonly requestUris = new Map<string, Grant>();
  private readonly codes = new Map<string, Grant>();
  private readonly refreshTokens = new Map<string, { sub: string; scope: string; jkt: string }>();
  private readonly revoked = new Set<string>();
  private readonly jtis = new Set<string>();
  private nonce = randomBytes(16).toString('base64url');

  constructor(private readonly options: { port?: number; host?: string } = {}) {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (error instanceof HttpFailure) return this.send(res, error.status, error.body, error.headers);
        this.send(res, 500, { error: 'server_error', error_description: String(error) });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) =>
      this.server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', resolve),
    );
    // `localhost`, not 127.0.0.1: the client allows http only for localhost-like origins, and an
    // issuer must match exactly wherever it appears.
    this.url = `http://localhost:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The account of `handle` (made on first use), as the network knows it. */
  account(handle: string): Account {
    const key = handle.toLowerCase();
    let account = this.accounts.get(key);
    if (!account) {
      const unclaimed = key.endsWith('.unclaimed.test');
      account = { did: standInDid(key), handle: key, claimed: unclaimed ? `someone-else-${key}` : key };
      this.accounts.set(key, account);
    }
    return account;
  }

  /**
   * The person behind `did` changes handle (the old one is then free for anyone), or, with `claims`
   * false, their DID document stops claiming any handle that resolves to them.
   */
  rename(did: string, handle: string, { claims = true } = {}): void {
    const account = this.byDid(did);
    if (!account) throw new Error(`no account ${did}`);
    this.accounts.delete(account.handle);
    const renamed = { did, handle, claimed: claims ? handle : `someone-else-${handle}` };
    this.accounts.set(handle, renamed);
  }

  /** Every refresh token of `did` stops working (the person revoked the app at their PDS). */
  revokeRefreshTokens(did: string): void {
    for (const [token, grant] of this.refreshTokens) if (grant.sub === did) this.refreshTokens.delete(token);
  }

  /** Whether `token` (access or refresh) was revoked through /oauth/revoke. */
  wasRevoked(token: string): boolean {
    return this.revoked.has(token);
  }

  private byDid(did: string): Account | undefined {
    return [...this.accounts.values()].find((a) => a.did === did);
  }

  private send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    res.end(JSON.stringify(body));
  }

  private async form(req: http.IncomingMessage): Promise<URLSearchParams> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  }

  /** RFC 9449: a valid proof for this request, with our current nonce; answers the key's thumbprint. */
  private async dpop(req: http.IncomingMessage, htu: string): Promise<string> {
    const fail = (error: string, description: string) =>
      new HttpFailure(400, { error, error_description: description }, { 'DPoP-Nonce': this.nonce });
    const proof = req.headers.dpop;
    if (typeof proof !== 'string') throw fail('invalid_dpop_proof', 'DPoP proof required');
    const verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      maxTokenAge: 60,
      clockTolerance: 10,
    }).catch((error: Error) => {
      throw fail('invalid_dpop_proof', error.message);
    });
    const { payload, protectedHeader } = verified;
    if (payload.htm !== req.method || payload.htu !== htu) throw fail('invalid_dpop_proof', 'htm or htu mismatch');
    if (typeof payload.jti !== 'string' || this.jtis.has(payload.jti)) throw fail('invalid_dpop_proof', 'jti replayed');
    this.jtis.add(payload.jti);
    if (payload.nonce !== this.nonce) throw fail('use_dpop_nonce', 'Authorization server requires nonce in DPoP proof');
    return calculateJwkThumbprint(protectedHeader.jwk as JWK, 'sha256');
  }

  private metadata() {
    const url = this.url;
    return {
      issuer: url,
      authorization_endpoint: `${url}/oauth/authorize`,
      token_endpoint: `${url}/oauth/token`,
      pushed_authorization_request_endpoint: `${url}/oauth/par`,
      require_pushed_authorization_requests: true,
      revocation_endpoint: `${url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256'],
      dpop_signing_alg_values_supported: ['ES256'],
      scopes_supported: ['atproto', 'transition:generic'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    };
  }

  private tokens(sub: string, scope: string, jkt: string) {
    const refresh = randomBytes(24).toString('base64url');
    const access = randomBytes(24).toString('base64url');
    this.refreshTokens.set(refresh, { sub, scope, jkt });
    this.issued.push({ sub, accessToken: access, refreshToken: refresh });
    return {
      access_token: access,
      token_type: 'DPoP',
      refresh_token: refresh,
      expires_in: this.accessTtlSeconds,
      scope,
      sub,
    };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const htu = `${this.url}${url.pathname}`;
    this.requests.push(`${req.method} ${url.pathname}`);
    const nonceHeader = { 'DPoP-Nonce': this.nonce };

    // The client asks for `/did%3Aplc%3A...` (the DID as one encoded path segment).
    const path = decodeURIComponent(url.pathname);
    if (req.method === 'GET' && path.startsWith('/did:plc:')) {
      const account = this.byDid(path.slice(1));
      if (!account) return this.send(res, 404, { message: 'DID not registered' });
      return this.send(res, 200, {
        '@context': ['https://www.w3.org/ns/did/v1'],
        id: account.did,
        alsoKnownAs: [`at://${account.claimed}`],
        verificationMethod: [],
        service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: this.url }],
      });
    }
    if (req.method === 'GET' && url.pathname === '/xrpc/com.atproto.identity.resolveHandle') {
      const handle = (url.searchParams.get('handle') ?? '').toLowerCase();
      if (!handle.endsWith('.test')) {
        return this.send(res, 400, { error: 'InvalidRequest', message: 'Unable to resolve handle' });
      }
      return this.send(res, 200, { did: this.account(handle).did });
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-protected-resource') {
      return this.send(res, 200, { resource: this.url, authorization_servers: [this.url] });
    }
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return this.send(res, 200, this.metadata());
    }
    if (req.method === 'POST' && url.pathname === '/oauth/par') {
      const jkt = await this.dpop(req, htu);
      const params = Object.fromEntries(await this.form(req));
      for (const name of ['client_id', 'response_type', 'code_challenge', 'redirect_uri', 'state', 'scope']) {
        if (!params[name])
          return this.send(res, 400, { error: 'invalid_request', error_description: `${name} missing` });
      }
      if (params.code_challenge_method !== 'S256') return this.send(res, 400, { error: 'invalid_request' });
      const requestUri = `urn:ietf:params:oauth:request_uri:req-${randomBytes(12).toString('hex')}`;
      this.requestUris.set(requestUri, { params, jkt });
      return this.send(res, 201, { request_uri: requestUri, expires_in: 300 }, nonceHeader);
    }
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      const requestUri = url.searchParams.get('request_uri') ?? '';
      const grant = this.requestUris.get(requestUri);
      if (!grant || grant.params.client_id !== url.searchParams.get('client_id')) {
        return this.send(res, 400, { error: 'invalid_request', error_description: 'Unknown request_uri' });
      }
      this.requestUris.delete(requestUri);
      const hint = this.approveAs ?? grant.params.login_hint ?? '';
      const account = hint.startsWith('did:') ? this.byDid(hint) : this.account(hint);
      if (!account) return this.send(res, 400, { error: 'invalid_request', error_description: 'Unknown account' });
      const code = randomBytes(16).toString('base64url');
      this.codes.set(code, { ...grant, params: { ...grant.params, sub: account.did } });
      const back = new URL(grant.params.redirect_uri as string);
      back.searchParams.set('state', grant.params.state as string);
      back.searchParams.set('iss', this.url);
      back.searchParams.set('code', code);
      res.writeHead(302, { location: back.href });
      res.end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      const jkt = await this.dpop(req, htu);
      const form = await this.form(req);
      const grantType = form.get('grant_type') ?? '';
      this.requests.push(`token ${grantType}`);
      if (grantType === 'authorization_code') {
        const code = form.get('code') ?? '';
        const grant = this.codes.get(code);
        this.codes.delete(code);
        const verifier = createHash('sha256')
          .update(form.get('code_verifier') ?? '')
          .digest('base64url');
        if (
          !grant ||
          grant.jkt !== jkt ||
          verifier !== grant.params.code_challenge ||
          form.get('redirect_uri') !== grant.params.redirect_uri
        ) {
          return this.send(res, 400, { error: 'invalid_grant', error_description: 'Invalid code' }, nonceHeader);
        }
        return this.send(
          res,
          200,
          this.tokens(grant.params.sub as string, grant.params.scope as string, jkt),
          nonceHeader,
        );
      }
      if (grantType === 'refresh_token') {
        const token = form.get('refresh_token') ?? '';
        const grant = this.refreshTokens.get(token);
        if (!grant || grant.jkt !== jkt) {
          return this.send(
            res,
            400,
            { error: 'invalid_grant', error_description: 'Invalid refresh token' },
            nonceHeader,
          );
        }
        this.refreshTokens.delete(token);
        return this.send(res, 200, this.tokens(grant.sub, grant.scope, jkt), nonceHeader);
      }
      return this.send(res, 400, { error: 'unsupported_grant_type' }, nonceHeader);
    }
    if (req.method === 'POST' && url.pathname === '/oauth/revoke') {
      const token = (await this.form(req)).get('token') ?? '';
      this.revoked.add(token);
      this.refreshTokens.delete(token);
      return this.send(res, 200, {});
    }
    this.send(res, 404, { error: 'NotFound' });
  }
}
