// Linking a Bluesky identity (docs/bluesky.md) against the AT Protocol stand-in
// (server/src/test/bluesky-stand-in.ts: PLC directory, handle resolver, PDS + OAuth server), with the
// real @atproto/oauth-client-node doing DPoP, PKCE and PAR. A browser is played by following the
// redirects by hand: link -> the stand-in's authorize -> our callback -> /profile?bluesky_link=code.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BLUESKY_TEXTS, type LoginResponse } from '@shared/index';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { AtprotoStandIn, standInDid } from '../../test/bluesky-stand-in';
import { mutualPair } from '../../test/chat-flow';
import { nextEvent, startTestServer, type TestServer, uniqueName } from '../../test/harness';

const CALLBACK = 'http://127.0.0.1/api/bluesky/callback';

/** The `name=value` of the browser-binding cookie a link start set. */
const cookieOf = (headers: Headers) => (headers.get('set-cookie') ?? '').split(';')[0] ?? '';

describe('Bluesky link (AT Protocol OAuth) against the stand-in', () => {
  let standIn: AtprotoStandIn;
  let server: TestServer;
  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  beforeAll(async () => {
    standIn = await new AtprotoStandIn().start();
    server = await startTestServer({
      ATPROTO_PLC_URL: standIn.url,
      ATPROTO_HANDLE_RESOLVER: standIn.url,
      ATPROTO_CALLBACK_URL: CALLBACK,
    });
  });

  afterAll(async () => {
    await server?.close();
    await standIn?.close();
  });

  const handleOf = (label: string) =>
    `${uniqueName(label)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')}.test`;

  /** Starts a link and plays the browser up to our callback's answer: the Location it redirects to. */
  async function approve(me: LoginResponse, handle: string, on: TestServer = server): Promise<URL> {
    const start = await on.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: `@${handle.toUpperCase()}` },
    });
    expect(start.status, start.text).toBe(200);
    const authorize = new URL(start.json.url as string);
    expect(authorize.origin).toBe(standIn.url);
    const consent = await fetch(authorize, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = new URL(consent.headers.get('location') ?? '');
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);
    // The same browser: it carries the cookie the start set.
    const back = await fetch(`${on.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: { cookie: cookieOf(start.headers) },
    });
    expect(back.status).toBe(302);
    return new URL(back.headers.get('location') ?? '', on.url);
  }

  async function link(me: LoginResponse, handle: string) {
    const back = await approve(me, handle);
    const code = back.searchParams.get('bluesky_link');
    expect(code, back.href).toMatch(/^[\w-]{43}$/);
    return server.call('POST', `/api/users/${me.user.id}/bluesky/finish`, { token: me.token, body: { code } });
  }

  const row = async (userId: number) =>
    (
      await sql<{
        atp_did: string | null;
        atp_handle: string | null;
        atp_access_token: string | null;
        atp_refresh_token: string | null;
        atp_oauth_session: string | null;
      }>(
        em(),
        // The person's Bluesky identity under the names its columns had on `users`.
        `select i.subject as atp_did, i.handle as atp_handle, i.access_token as atp_access_token,
                i.refresh_token as atp_refresh_token, i.session as atp_oauth_session
           from users u left join user_identities i on i.user_id = u.id and i.provider = 'bluesky'
          where u.id = ?`,
        [userId],
      )
    )[0];

  it('serves the loopback client metadata and an empty JWKS in development', async () => {
    const metadata = await server.call('GET', '/api/bluesky/client-metadata.json');
    expect(metadata.status).toBe(200);
    const clientId = new URL(metadata.json.client_id as string);
    expect(clientId.origin).toBe('http://localhost');
    expect(clientId.searchParams.getAll('redirect_uri')).toEqual([CALLBACK]);
    expect(metadata.json).toMatchObject({
      redirect_uris: [CALLBACK],
      scope: 'atproto',
      dpop_bound_access_tokens: true,
      token_endpoint_auth_method: 'none',
    });
    const jwks = await server.call('GET', '/api/bluesky/jwks.json');
    expect(jwks.json).toEqual({ keys: [] });
  });

  it('a web client (https PUBLIC_URL) serves its metadata and public JWKS, and links with private_key_jwt', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const web = await startTestServer({
      ATPROTO_PLC_URL: standIn.url,
      ATPROTO_HANDLE_RESOLVER: standIn.url,
      PUBLIC_URL: 'https://podmatch.example',
      ATPROTO_PRIVATE_KEY: JSON.stringify(await exportJWK(privateKey)),
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    try {
      const metadata = await web.call('GET', '/api/bluesky/client-metadata.json');
      expect(metadata.json).toMatchObject({
        client_id: 'https://podmatch.example/api/bluesky/client-metadata.json',
        redirect_uris: ['https://podmatch.example/api/bluesky/callback'],
        jwks_uri: 'https://podmatch.example/api/bluesky/jwks.json',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        application_type: 'web',
      });
      const jwks = await web.call('GET', '/api/bluesky/jwks.json');
      expect(jwks.json.keys).toHaveLength(1);
      expect(jwks.json.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: 'podmatch-1' });
      expect(jwks.json.keys[0].d).toBeUndefined();

      const me = await web.login();
      const start = await web.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
        token: me.token,
        body: { handle: handleOf('web') },
      });
      const consent = await fetch(start.json.url as string, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location') ?? '');
      expect(callback.origin).toBe('https://podmatch.example');
      const back = await fetch(`${web.url}${callback.pathname}${callback.search}`, {
        redirect: 'manual',
        headers: { cookie: cookieOf(start.headers) },
      });
      const code = new URL(back.headers.get('location') ?? '', web.url).searchParams.get('bluesky_link');
      const done = await web.call('POST', `/api/users/${me.user.id}/bluesky/finish`, {
        token: me.token,
        body: { code },
      });
      expect(done.status, done.text).toBe(200);
      expect(done.json).toMatchObject({ linked: true });
    } finally {
      await web.close();
    }
  });

  it('links a handle whose DID document claims it: stored encrypted, shown to the owner, never a token', async () => {
    const me = await server.login();
    const handle = handleOf('ada');
    const done = await link(me, handle);
    expect(done.status, done.text).toBe(200);
    expect(done.json).toEqual({ available: true, message: null, linked: true, handle, did: standInDid(handle) });

    const stored = await row(me.user.id);
    const tokens = standIn.issued.filter((t) => t.sub === standInDid(handle)).at(-1);
    expect(tokens).toBeDefined();
    expect(stored?.atp_access_token).toMatch(/^v2\./);
    expect(stored?.atp_access_token).not.toContain(tokens?.accessToken);
    expect(stored?.atp_refresh_token).toMatch(/^v2\./);
    expect(stored?.atp_oauth_session).toMatch(/^v2\./);

    const self = await server.call('GET', `/api/users/${me.user.id}`, { token: me.token });
    expect(self.json.atpHandle).toBe(handle);
    for (const path of [
      `/api/users/${me.user.id}`,
      `/api/users/${me.user.id}/bluesky`,
      `/api/users/${me.user.id}/export`,
    ]) {
      const res = await server.call('GET', path, { token: me.token });
      expect(res.status).toBe(200);
      for (const secret of [tokens?.accessToken, tokens?.refreshToken, stored?.atp_access_token]) {
        expect(res.text).not.toContain(secret);
      }
      expect(res.text).not.toMatch(/atp(Access|Refresh)Token|atpOauthSession|dpopJwk/);
    }
  });

  it('keeps the authorization state in the database, encrypted, until the callback spends it', async () => {
    const me = await server.login();
    const start = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: handleOf('state') },
    });
    expect(start.status).toBe(200);
    const states = async () =>
      sql<{ key: string; data: string; ttl: number }>(
        em(),
        `select key, data, extract(epoch from expires_at - now())::int as ttl from bluesky_oauth_states
          where data not like '%' || ? || '%'`,
        ['dpopJwk'],
      );
    const before = await states();
    const mine = before.filter((s) => s.data.startsWith('v2.'));
    expect(mine.length).toBeGreaterThan(0);
    expect(Math.max(...mine.map((s) => s.ttl))).toBeLessThanOrEqual(600);
    const consent = await fetch(start.json.url as string, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const key = callback.searchParams.get('state') ?? '';
    expect((await states()).some((s) => s.key === key)).toBe(true);
    const cookie = { cookie: cookieOf(start.headers) };
    await fetch(`${server.url}${callback.pathname}${callback.search}`, { redirect: 'manual', headers: cookie });
    expect((await states()).some((s) => s.key === key)).toBe(false);
    // The same callback again (a replay): refused, nothing waiting to be claimed.
    const replay = await fetch(`${server.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: cookie,
    });
    expect(new URL(replay.headers.get('location') ?? '', server.url).searchParams.get('bluesky_error')).toBe('failed');
  });

  it('a handle whose DID document does not claim it back is refused; an unknown handle too', async () => {
    const me = await server.login();
    const unclaimed = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: {
        handle: `${uniqueName('liar')
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '')}.unclaimed.test`,
      },
    });
    expect(unclaimed.status).toBe(422);
    expect(unclaimed.json.message).toBe(BLUESKY_TEXTS.notClaimed);
    const unknown = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: 'nobody.example.com' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.message).toBe(BLUESKY_TEXTS.unresolved);
    const malformed = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: 'not a handle' },
    });
    expect(malformed.status).toBe(400);
    expect((await row(me.user.id))?.atp_did).toBeNull();
  });

  it('another account cannot claim, start, read or unlink the link', async () => {
    const victim = await server.login();
    const attacker = await server.login();
    // The victim approved a link (say, from a URL the attacker sent); the attacker holds the code.
    const back = await approve(victim, handleOf('victim'));
    const code = back.searchParams.get('bluesky_link');
    const stolen = await server.call('POST', `/api/users/${attacker.user.id}/bluesky/finish`, {
      token: attacker.token,
      body: { code },
    });
    expect(stolen.status).toBe(403);
    expect(stolen.json.message).toBe(BLUESKY_TEXTS.otherAccount);
    expect((await row(attacker.user.id))?.atp_did).toBeNull();
    // The code was spent by that try: nobody can use it now.
    const late = await server.call('POST', `/api/users/${victim.user.id}/bluesky/finish`, {
      token: victim.token,
      body: { code },
    });
    expect(late.status).toBe(410);
    expect((await row(victim.user.id))?.atp_did).toBeNull();

    // The attacker starts a link and sends it to the victim: the victim's app claims it as the victim.
    const lure = await approve(attacker, handleOf('lure'));
    const claimed = await server.call('POST', `/api/users/${victim.user.id}/bluesky/finish`, {
      token: victim.token,
      body: { code: lure.searchParams.get('bluesky_link') },
    });
    expect(claimed.status).toBe(403);
    expect((await row(victim.user.id))?.atp_did).toBeNull();
    expect((await row(attacker.user.id))?.atp_did).toBeNull();

    const linked = await link(victim, handleOf('victim2'));
    expect(linked.status).toBe(200);
    for (const [method, path] of [
      ['GET', `/api/users/${victim.user.id}/bluesky`],
      ['DELETE', `/api/users/${victim.user.id}/bluesky`],
      ['POST', `/api/users/${victim.user.id}/bluesky/link`],
    ] as const) {
      const body = method === 'POST' ? { handle: handleOf('x') } : undefined;
      const res = await server.call(method, path, { token: attacker.token, body });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await row(victim.user.id))?.atp_did).not.toBeNull();
  });

  it('one Bluesky identity belongs to one profile; only its owner learns it is taken, after approving', async () => {
    const first = await server.login();
    const second = await server.login();
    const handle = handleOf('shared');
    expect((await link(first, handle)).status).toBe(200);
    // Starting says nothing about other profiles (no probing which handles have one here).
    const again = await link(second, handle);
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(BLUESKY_TEXTS.inUse);
    expect((await row(first.user.id))?.atp_handle).toBe(handle);
    expect((await row(second.user.id))?.atp_did).toBeNull();
  });

  it('many profiles claiming one DID at once: one links it, the others get a 409, never a 5xx', async () => {
    const people = await Promise.all(Array.from({ length: 12 }, () => server.login()));
    const handle = handleOf('contested');
    const codes: (string | null)[] = [];
    for (const person of people) codes.push((await approve(person, handle)).searchParams.get('bluesky_link'));
    const claims = await Promise.all(
      people.map((person, i) =>
        server.call('POST', `/api/users/${person.user.id}/bluesky/finish`, {
          token: person.token,
          body: { code: codes[i] },
        }),
      ),
    );
    const statuses = claims.map((c) => c.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(people.length - 1);
    const holders = await sql<{ user_id: number }>(
      em(),
      `select user_id from user_identities where provider = 'bluesky' and subject = ?`,
      [standInDid(handle)],
    );
    expect(holders).toEqual([{ user_id: people[statuses.indexOf(200)]?.user.id }]);
  });

  it('a link approved in another browser than the one that started it creates nothing to claim', async () => {
    const me = await server.login();
    const start = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: handleOf('elsewhere') },
    });
    expect(cookieOf(start.headers)).toMatch(/^podmatch_bluesky=[\w-]{43}$/);
    const consent = await fetch(start.json.url as string, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const mark = standIn.requests.length;
    const back = await fetch(`${server.url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
    const target = new URL(back.headers.get('location') ?? '', server.url);
    expect(target.searchParams.get('bluesky_error')).toBe('other_browser');
    expect(target.searchParams.has('bluesky_link')).toBe(false);
    // Refused before the code was exchanged.
    expect(standIn.requests.slice(mark)).not.toContain('token authorization_code');
    expect((await row(me.user.id))?.atp_did).toBeNull();
  });

  it('a state that cannot be read is refused before the exchange, not let through without the browser check', async () => {
    const me = await server.login();
    const start = await server.call('POST', `/api/users/${me.user.id}/bluesky/link`, {
      token: me.token,
      body: { handle: handleOf('unreadable') },
    });
    const consent = await fetch(start.json.url as string, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    // The server's read of the state fails (a database hiccup) while the library's own read would work.
    const client = server.running.deps.bluesky;
    if (!client) throw new Error('the Bluesky client is configured in this test');
    const appStateOf = client.appStateOf;
    client.appStateOf = async () => {
      throw new Error('connection terminated');
    };
    const mark = standIn.requests.length;
    try {
      // Another browser: no cookie.
      const back = await fetch(`${server.url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
      const target = new URL(back.headers.get('location') ?? '', server.url);
      expect(target.searchParams.get('bluesky_error')).toBe('failed');
      expect(target.searchParams.has('bluesky_link')).toBe(false);
    } finally {
      client.appStateOf = appStateOf;
    }
    expect(standIn.requests.slice(mark)).not.toContain('token authorization_code');
    expect((await row(me.user.id))?.atp_did).toBeNull();
  });

  it('links the identity the person actually approved as, not the handle typed', async () => {
    const me = await server.login();
    const typed = handleOf('typed');
    const approved = handleOf('approved');
    standIn.approveAs = approved;
    try {
      const done = await link(me, typed);
      expect(done.status).toBe(200);
      expect(done.json).toMatchObject({ linked: true, handle: approved, did: standInDid(approved) });
    } finally {
      standIn.approveAs = null;
    }
  });

  it('shows the handle the DID document claims now: a new handle is followed, a lost one hides the badge', async () => {
    const me = await server.login();
    const handle = handleOf('renamer');
    expect((await link(me, handle)).status).toBe(200);
    const did = standInDid(handle);
    const renamed = handleOf('renamed');
    standIn.rename(did, renamed);
    const status = await server.call('GET', `/api/users/${me.user.id}/bluesky`, { token: me.token });
    expect(status.json).toMatchObject({ linked: true, handle: renamed, did });
    expect((await row(me.user.id))?.atp_handle).toBe(renamed);

    standIn.rename(did, handleOf('unclaimed'), { claims: false });
    const socket = await server.socket(me.token);
    const updated = nextEvent(socket, 'user:updated');
    const lost = await server.call('GET', `/api/users/${me.user.id}/bluesky`, { token: me.token });
    expect(lost.json).toMatchObject({ linked: true, handle: null, message: BLUESKY_TEXTS.handleLost });
    // The badge goes in every tab too, and stays gone.
    expect((await updated)[0]).toMatchObject({ atpHandle: null });
    expect((await row(me.user.id))?.atp_handle).toBeNull();
    const self = await server.call('GET', `/api/users/${me.user.id}`, { token: me.token });
    expect(self.json.atpHandle).toBeNull();
    socket.disconnect();
  });

  it('refreshes the tokens before they expire; a refused refresh ends the link', async () => {
    standIn.accessTtlSeconds = 5;
    try {
      const me = await server.login();
      const handle = handleOf('refresh');
      expect((await link(me, handle)).status).toBe(200);
      const before = await row(me.user.id);
      const mark = standIn.requests.length;
      const status = await server.call('GET', `/api/users/${me.user.id}/bluesky`, { token: me.token });
      expect(status.json).toMatchObject({ linked: true, handle });
      expect(standIn.requests.slice(mark)).toContain('token refresh_token');
      const after = await row(me.user.id);
      expect(after?.atp_refresh_token).not.toBe(before?.atp_refresh_token);

      // The person revoked the app at their server: the next refresh is refused, the link ends.
      standIn.revokeRefreshTokens(standInDid(handle));
      const ended = await server.call('GET', `/api/users/${me.user.id}/bluesky`, { token: me.token });
      expect(ended.json).toMatchObject({ linked: false, handle: null, message: BLUESKY_TEXTS.ended });
      // The DID stays as a way to sign in; nothing of the ended session is kept.
      expect(await row(me.user.id)).toMatchObject({
        atp_did: standInDid(handle),
        atp_handle: null,
        atp_access_token: null,
        atp_refresh_token: null,
        atp_oauth_session: null,
      });
    } finally {
      standIn.accessTtlSeconds = 3600;
    }
  });

  it('unlink revokes the tokens at the server and forgets the DID, handle and tokens', async () => {
    const me = await server.login();
    const handle = handleOf('unlink');
    expect((await link(me, handle)).status).toBe(200);
    const tokens = standIn.issued.filter((t) => t.sub === standInDid(handle)).at(-1);
    const socket = await server.socket(me.token);
    const updated = nextEvent(socket, 'user:updated');
    const res = await server.call('DELETE', `/api/users/${me.user.id}/bluesky`, { token: me.token });
    expect(res.status).toBe(200);
    expect((await updated)[0]).toMatchObject({ atpHandle: null });
    socket.disconnect();
    expect(standIn.wasRevoked(tokens?.refreshToken ?? '') || standIn.wasRevoked(tokens?.accessToken ?? '')).toBe(true);
    expect(await row(me.user.id)).toMatchObject({
      atp_did: null,
      atp_handle: null,
      atp_access_token: null,
      atp_refresh_token: null,
      atp_oauth_session: null,
    });
    const status = await server.call('GET', `/api/users/${me.user.id}/bluesky`, { token: me.token });
    expect(status.json).toMatchObject({ linked: false, handle: null });
  });

  it('removing Bluesky from the ways to sign in revokes the session too; the last way in stays', async () => {
    const me = await server.login();
    const handle = handleOf('ways');
    expect((await link(me, handle)).status).toBe(200);
    const tokens = standIn.issued.filter((t) => t.sub === standInDid(handle)).at(-1);
    const ways = await server.call('GET', `/api/users/${me.user.id}/sign-in-ways`, { token: me.token });
    const bluesky = ways.json.ways.find((w: { kind: string }) => w.kind === 'bluesky');
    expect(bluesky).toMatchObject({ label: `@${handle}` });
    // Development login still opens this account: Bluesky is not its last way in.
    const res = await server.call('DELETE', `/api/users/${me.user.id}/sign-in-ways/${bluesky.id}`, { token: me.token });
    expect(res.status, res.text).toBe(200);
    expect(res.json.ways.map((w: { kind: string }) => w.kind)).toEqual(['devLogin']);
    expect(standIn.wasRevoked(tokens?.refreshToken ?? '') || standIn.wasRevoked(tokens?.accessToken ?? '')).toBe(true);
    expect(await row(me.user.id)).toMatchObject({ atp_did: null, atp_access_token: null });
  });

  it('deleting the account revokes the Bluesky session too', async () => {
    const me = await server.login();
    const handle = handleOf('leaving');
    expect((await link(me, handle)).status).toBe(200);
    const tokens = standIn.issued.filter((t) => t.sub === standInDid(handle)).at(-1);
    const gone = await server.call('DELETE', `/api/users/${me.user.id}`, {
      token: me.token,
      body: { confirm: 'DELETE' },
    });
    expect(gone.status, gone.text).toBe(200);
    expect(standIn.wasRevoked(tokens?.refreshToken ?? '') || standIn.wasRevoked(tokens?.accessToken ?? '')).toBe(true);
    expect(await row(me.user.id)).toBeUndefined();
  });

  it('matches see the handle on profile details; people who are not matches do not', async () => {
    const { a, b } = await mutualPair(server);
    const stranger = await server.login();
    const handle = handleOf('match');
    const me = { token: a.token, user: { id: a.id } } as LoginResponse;
    expect((await link(me, handle)).status).toBe(200);
    const seen = await server.call('GET', `/api/users/${a.id}/profile-details?intent=romantic`, { token: b.token });
    expect(seen.status).toBe(200);
    expect(seen.json.bluesky).toEqual({ handle, did: standInDid(handle) });
    const own = await server.call('GET', `/api/users/${a.id}/profile-details?intent=romantic`, { token: a.token });
    expect(own.json.bluesky).toEqual({ handle, did: standInDid(handle) });
    const other = await server.call('GET', `/api/users/${a.id}/profile-details?intent=romantic`, {
      token: stranger.token,
    });
    expect(other.status === 404 || other.json.bluesky === null).toBe(true);
  });

  it('many people link at once, and a code claimed many times at once links once', async () => {
    const people = await Promise.all(Array.from({ length: 24 }, () => server.login()));
    const handles = people.map(() => handleOf('crowd'));
    const results = await Promise.all(people.map((person, i) => link(person, handles[i] as string)));
    expect(results.map((r) => r.status)).toEqual(people.map(() => 200));
    for (const [i, person] of people.entries()) {
      expect((await row(person.user.id))?.atp_handle).toBe(handles[i]);
    }
    // Everyone's status (a refresh check and a handle re-check each) and then everyone's unlink, at once.
    const checks = await Promise.all(
      people.map((person) => server.call('GET', `/api/users/${person.user.id}/bluesky`, { token: person.token })),
    );
    expect(checks.map((r) => r.json?.handle)).toEqual(handles);
    const unlinks = await Promise.all(
      people.map((person) => server.call('DELETE', `/api/users/${person.user.id}/bluesky`, { token: person.token })),
    );
    expect(unlinks.map((r) => r.status)).toEqual(people.map(() => 200));
    for (const person of people) expect((await row(person.user.id))?.atp_did).toBeNull();

    const me = await server.login();
    const back = await approve(me, handleOf('race'));
    const code = back.searchParams.get('bluesky_link');
    const claims = await Promise.all(
      Array.from({ length: 16 }, () =>
        server.call('POST', `/api/users/${me.user.id}/bluesky/finish`, { token: me.token, body: { code } }),
      ),
    );
    const statuses = claims.map((c) => c.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(15);
  });
});
