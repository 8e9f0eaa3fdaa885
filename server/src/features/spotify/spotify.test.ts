import { wrap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SPOTIFY_CONNECT_TEXTS, SPOTIFY_SIGN_IN_TEXTS } from '@shared/index';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decryptSecret, SecretDecryptError } from '../../core/crypto/secret-box';
import { PodcastSchema, UserIdentitySchema, UserPodcastSchema, UserSchema } from '../../core/db/entities';
import type { SpotifyProfile } from '../../core/spotify/spotify-client';
import { spotifyOwner } from '../../core/spotify/spotify-tokens';
import { nextEvent, startTestServer, type TestServer, uniqueName } from '../../test/harness';
import {
  connectSpotify,
  connectTicket,
  freePort,
  signInWithSpotify,
  spotifyLinkOf,
  spotifyServerEnv,
  TestBrowser,
} from '../../test/spotify-flow';
import { makeShow, SpotifyStandIn } from '../../test/spotify-stand-in';
import { findOrCreateSpotifyUser } from './spotify.service';

/** No answer of ours may contain a Spotify token (or its encrypted form). */
function expectNoSecrets(text: string, standIn: SpotifyStandIn, stored: (string | null | undefined)[] = []) {
  for (const secret of [...standIn.issuedTokens(), ...stored]) {
    if (secret) expect(text).not.toContain(secret);
  }
}

describe('Spotify without client credentials', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('sends both entry points to /login?error=missing_spotify_credentials', async () => {
    for (const path of ['/api/auth/spotify', '/api/spotify/login', '/api/spotify/login?ticket=x']) {
      const res = await fetch(`${server.url}${path}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login?error=missing_spotify_credentials');
    }
  });

  it('reports Spotify as unavailable and refuses a sync with a clear 409', async () => {
    const me = await server.login();
    const status = await server.call('GET', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(status.status).toBe(200);
    expect(status.json).toEqual({ available: false, connected: false, spotifyId: null, lastSpotifySync: null });
    const sync = await server.call('POST', `/api/users/${me.user.id}/spotify/sync`, { token: me.token });
    expect(sync.status).toBe(409);
    expect(sync.json.message).toMatch(/not configured/);
  });
});

describe('Spotify OAuth (authorization code with PKCE) against the stand-in', () => {
  let server: TestServer;
  const standIn = new SpotifyStandIn();
  let accountId = '';

  beforeAll(async () => {
    await standIn.start();
    const port = await freePort();
    server = await startTestServer(spotifyServerEnv(standIn, port));
  });
  afterAll(async () => {
    await server.close();
    await standIn.close();
  });
  beforeEach(() => {
    // A fresh Spotify account "signed in" in the browser for each test.
    accountId = uniqueName('sp');
    standIn.addAccount({
      id: accountId,
      displayName: `Listener ${accountId}`,
      shows: [{ addedAt: '2026-01-01T00:00:00Z', show: makeShow(`${accountId}show1`, 'Show One') }],
    });
    standIn.signedInAs = accountId;
    standIn.denyNextAuthorize = false;
    standIn.failProfileStatus = null;
  });

  const em = () => server.running.deps.orm.em.fork();

  it('signs in (creating the account) through Spotify, with a one-time code and encrypted tokens', async () => {
    const browser = new TestBrowser();
    const { login, final, exchangeText } = await signInWithSpotify(server.url, browser);
    expect(final.pathname).toBe('/login');
    expect(login.user).toMatchObject({
      displayName: `Listener ${accountId}`,
      spotifyId: accountId,
      spotifyConnected: true,
    });
    expect(login.token).toEqual(expect.any(String));

    // The authorize request used PKCE S256 and a state; the state cookie is HttpOnly and gone after.
    const authorize = new URL(browser.hops.find((h) => h.location?.startsWith(standIn.url))?.location ?? '');
    expect(authorize.pathname).toBe('/authorize');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
    // Only the scopes the sync uses, and Spotify's consent page every time.
    expect(authorize.searchParams.get('scope')).toBe('user-library-read user-read-playback-position');
    expect(authorize.searchParams.get('show_dialog')).toBe('true');
    // The state cookie and the sign-in cookie are both gone after the exchange.
    expect(browser.cookies.size).toBe(0);

    const user = await spotifyLinkOf(em(), login.user.id);
    expect(user.spotifyAccessToken).toMatch(/^v2\./);
    const key = server.running.deps.config.spotify.tokenKey;
    const owner = spotifyOwner(user.id);
    expect(standIn.issuedTokens()).toContain(decryptSecret(user.spotifyAccessToken ?? '', key, owner));
    expect(standIn.issuedTokens()).toContain(decryptSecret(user.spotifyRefreshToken ?? '', key, owner));
    // Bound to this user: the same ciphertext on anyone else's row does not decrypt.
    expect(() => decryptSecret(user.spotifyAccessToken ?? '', key, spotifyOwner(user.id + 1))).toThrow(
      SecretDecryptError,
    );
    expectNoSecrets(exchangeText, standIn, [user.spotifyAccessToken, user.spotifyRefreshToken]);
    // Hidden from every serialization of the entity (the user, loaded with their linked identities).
    const entity = await em().findOneOrFail(UserSchema, login.user.id);
    const serialized = { toJSON: JSON.stringify(entity), toObject: JSON.stringify(wrap(entity).toObject()) };
    for (const [how, text] of Object.entries(serialized)) {
      expect(text, how).toContain(accountId);
      expect(text, how).not.toContain('spotifyAccessToken');
      expect(text, how).not.toContain('spotifyRefreshToken');
      expect(text, how).not.toMatch(/accessToken|refreshToken|"session"/);
      expectNoSecrets(text, standIn, [user.spotifyAccessToken, user.spotifyRefreshToken]);
    }

    // The code works once.
    const code = final.searchParams.get('spotify_code');
    const again = await server.call('POST', '/api/auth/spotify/exchange', { body: { code } });
    expect(again.status).toBe(400);
    expect(again.json.message).toMatch(/expired or was already used/);

    // Signing in again with the same Spotify account finds the same user.
    const second = await signInWithSpotify(server.url);
    expect(second.login.user.id).toBe(login.user.id);

    // Nothing the owner can read carries a token.
    for (const path of [`/api/users/${user.id}`, `/api/users/${user.id}/spotify`, `/api/users/${user.id}/export`]) {
      const res = await server.call('GET', path, { token: second.login.token });
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/spotify(Access|Refresh)Token/);
      expectNoSecrets(res.text, standIn, [user.spotifyAccessToken, user.spotifyRefreshToken]);
    }
  });

  it('a connect link opened in someone else’s browser links nothing to anyone', async () => {
    const attacker = await server.login();
    const victim = await server.login();
    // The attacker starts a connect for their own account and sends the link; the victim, signed in
    // to Spotify in their own browser, opens it and consents.
    const link = await connectTicket(server.url, attacker.token);
    const victimBrowser = new TestBrowser();
    const landed = await victimBrowser.follow(link, server.url);
    expect(landed.pathname).toBe('/profile');
    const code = landed.searchParams.get('spotify_connect');
    // The victim's page claims it with the victim's session: refused, nothing linked.
    const claimed = await victimBrowser.post(
      `${server.url}/api/spotify/connect/finish`,
      { code },
      { authorization: `Bearer ${victim.token}` },
    );
    expect(claimed.status).toBe(403);
    expect(claimed.json).toMatchObject({ message: SPOTIFY_CONNECT_TEXTS.otherAccount });
    // Not signed in at all: 401, and the code still cannot be used by the attacker after the refusal.
    const anonymous = await victimBrowser.post(`${server.url}/api/spotify/connect/finish`, { code });
    expect(anonymous.status).toBe(401);
    const late = await server.call('POST', '/api/spotify/connect/finish', { token: attacker.token, body: { code } });
    expect(late.status).toBe(400);
    expect(late.json.message).toBe(SPOTIFY_CONNECT_TEXTS.expired);
    for (const id of [attacker.user.id, victim.user.id]) {
      const user = await spotifyLinkOf(em(), id);
      expect(user.spotifyId).toBeNull();
      expect(user.spotifyRefreshToken).toBeNull();
    }
    // Nobody can later sign in as the attacker with the victim's Spotify.
    const signIn = await signInWithSpotify(server.url);
    expect(signIn.login.user.id).not.toBe(attacker.user.id);
  });

  it('a sign-in code redeemed by another browser is refused, and spent', async () => {
    // The attacker signs in through Spotify but does not redeem the code: they send the link on.
    const attackerBrowser = new TestBrowser();
    const final = await attackerBrowser.follow(`${server.url}/api/auth/spotify`, server.url);
    const code = final.searchParams.get('spotify_code');
    expect(code).toBeTruthy();
    const victimBrowser = new TestBrowser();
    const victimTry = await victimBrowser.post(`${server.url}/api/auth/spotify/exchange`, { code });
    expect(victimTry.status).toBe(400);
    expect(victimTry.json).toMatchObject({ message: SPOTIFY_SIGN_IN_TEXTS.otherBrowser });
    expect(victimTry.text).not.toMatch(/token/);
    // Spent by the refused try: not even the right browser can use it now.
    const late = await attackerBrowser.post(`${server.url}/api/auth/spotify/exchange`, { code });
    expect(late.status).toBe(400);
    expect(late.json).toMatchObject({ message: SPOTIFY_SIGN_IN_TEXTS.expired });

    // A forged cookie does no better.
    const again = new TestBrowser();
    const next = await again.follow(`${server.url}/api/auth/spotify`, server.url);
    const forged = new TestBrowser();
    forged.cookies.set('podmatch_spotify_signin', 'x'.repeat(43));
    const forgedTry = await forged.post(`${server.url}/api/auth/spotify/exchange`, {
      code: next.searchParams.get('spotify_code'),
    });
    expect(forgedTry.status).toBe(400);
  });

  it('rejects a bad exchange body with a 400', async () => {
    expect((await server.call('POST', '/api/auth/spotify/exchange', { body: {} })).status).toBe(400);
    expect((await server.call('POST', '/api/auth/spotify/exchange', { body: { code: 'nope' } })).status).toBe(400);
    const extra = await server.call('POST', '/api/auth/spotify/exchange', { body: { code: 'x', token: 'y' } });
    expect(extra.status).toBe(400);
  });

  it('connects Spotify to the signed-in user via a one-time ticket', async () => {
    const me = await server.login();
    const ticket = await server.call('POST', '/api/spotify/connect-ticket', { token: me.token });
    expect(ticket.status).toBe(200);
    expect(ticket.json.url).toMatch(/^\/api\/spotify\/login\?ticket=[\w-]+$/);

    const socket = await server.socket(me.token);
    const updated = nextEvent(socket, 'user:updated');
    const { final, finish, browser } = await connectSpotify(server.url, me.token);
    expect((await updated)[0]).toMatchObject({ spotifyConnected: true, spotifyId: accountId });
    socket.disconnect();
    // Connect asks for the same consent page and scopes as sign-in.
    const authorize = new URL(browser.hops.find((h) => h.location?.startsWith(standIn.url))?.location ?? '');
    expect(authorize.searchParams.get('show_dialog')).toBe('true');
    expect(authorize.searchParams.get('scope')).toBe('user-library-read user-read-playback-position');
    expect(final.pathname).toBe('/profile');
    expect(final.searchParams.get('spotify_connect')).toMatch(/^[\w-]{43}$/);
    expect(finish?.status).toBe(200);
    expect(finish?.json).toEqual({ available: true, connected: true, spotifyId: accountId, lastSpotifySync: null });
    const status = await server.call('GET', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(status.json).toEqual({ available: true, connected: true, spotifyId: accountId, lastSpotifySync: null });
    const self = await server.call('GET', `/api/users/${me.user.id}`, { token: me.token });
    expect(self.json).toMatchObject({ spotifyId: accountId, spotifyConnected: true });

    // The first ticket (not used yet) works once, then never again.
    const once = await fetch(`${server.url}${ticket.json.url}`, { redirect: 'manual' });
    expect(once.headers.get('location')).toMatch(new RegExp(`^${standIn.url}/authorize\\?`));
    const twice = await fetch(`${server.url}${ticket.json.url}`, { redirect: 'manual' });
    expect(twice.headers.get('location')).toBe('/profile?spotify_error=spotify_auth_failed');

    const sync = await server.call('POST', `/api/users/${me.user.id}/spotify/sync`, { token: me.token });
    expect(sync.status).toBe(202);
    expect(sync.json.jobId).toEqual(expect.any(String));
  });

  it('refuses to link a Spotify account that belongs to another user', async () => {
    const a = await server.login();
    const b = await server.login();
    await connectSpotify(server.url, a.token);
    const { finish } = await connectSpotify(server.url, b.token);
    expect(finish?.status).toBe(409);
    expect(finish?.json).toMatchObject({ message: SPOTIFY_CONNECT_TEXTS.inUse });
    const user = await spotifyLinkOf(em(), b.user.id);
    expect(user.spotifyId).toBeNull();
    expect(user.spotifyRefreshToken).toBeNull();
  });

  /** Plays `count` connects of the current Spotify account up to the code each page would claim. */
  async function pendingConnects(tokens: string[]): Promise<string[]> {
    const codes: string[] = [];
    for (const token of tokens) {
      const final = await new TestBrowser().follow(await connectTicket(server.url, token), server.url);
      codes.push(final.searchParams.get('spotify_connect') ?? '');
    }
    return codes;
  }

  const spotifyIdentities = async (subject: string) =>
    em().find(UserIdentitySchema, { provider: 'spotify', subject }, { populate: ['user'] });

  it('many accounts claiming one Spotify account at once: one links it, the others get a 409, never a 5xx', async () => {
    const people = await Promise.all(Array.from({ length: 24 }, () => server.login()));
    const codes = await pendingConnects(people.map((p) => p.token));
    const claims = await Promise.all(
      people.map((person, i) =>
        server.call('POST', '/api/spotify/connect/finish', { token: person.token, body: { code: codes[i] } }),
      ),
    );
    const statuses = claims.map((c) => c.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(people.length - 1);
    for (const claim of claims.filter((c) => c.status === 409)) {
      expect(claim.json.message).toBe(SPOTIFY_CONNECT_TEXTS.inUse);
    }
    const linked = await spotifyIdentities(accountId);
    expect(linked).toHaveLength(1);
    expect(linked[0]?.user.id).toBe(people[statuses.indexOf(200)]?.user.id);
  });

  it('one person finishing many connects at once (tabs) links one Spotify identity, every claim answered', async () => {
    const me = await server.login();
    const codes = await pendingConnects(Array.from({ length: 12 }, () => me.token));
    const claims = await Promise.all(
      codes.map((code) => server.call('POST', '/api/spotify/connect/finish', { token: me.token, body: { code } })),
    );
    expect(claims.map((c) => c.status)).toEqual(codes.map(() => 200));
    const linked = await spotifyIdentities(accountId);
    expect(linked.map((identity) => identity.user.id)).toEqual([me.user.id]);
    expect(linked[0]?.refreshToken).toMatch(/^v2\./);
  });

  it('first sign-ins of one Spotify account racing (three times the pool) make one account', async () => {
    const profile = { id: accountId, display_name: `Listener ${accountId}` } as SpotifyProfile;
    const results = await Promise.all(
      Array.from({ length: 30 }, () => findOrCreateSpotifyUser(em() as EntityManager, profile)),
    );
    expect(new Set(results.map((r) => r.user.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const linked = await spotifyIdentities(accountId);
    expect(linked.map((identity) => identity.user.id)).toEqual([results[0]?.user.id]);
    expect(results[0]?.user.signUpMethod).toBe('spotify');
  });

  it('a first sign-in whose Spotify link cannot be stored leaves no account behind', async () => {
    // A Spotify id longer than the column: the identity's insert fails, and the account with it.
    const marker = uniqueName('orphan');
    const profile = { id: `${accountId}${'x'.repeat(300)}`, display_name: marker } as SpotifyProfile;
    await expect(findOrCreateSpotifyUser(em() as EntityManager, profile)).rejects.toThrow();
    expect(await em().count(UserSchema, { displayName: marker })).toBe(0);
  });

  it('maps denied consent, a missing code and a failed profile to the SPEC values', async () => {
    standIn.denyNextAuthorize = true;
    let final = await new TestBrowser().follow(`${server.url}/api/auth/spotify`, server.url);
    expect(`${final.pathname}${final.search}`).toBe('/login?error=spotify_auth_failed');

    const me = await server.login();
    standIn.denyNextAuthorize = true;
    final = (await connectSpotify(server.url, me.token)).final;
    expect(`${final.pathname}${final.search}`).toBe('/profile?spotify_error=spotify_auth_failed');

    // Missing code: the callback with a valid state and cookie but no code.
    const browser = new TestBrowser();
    const start = await browser.get(`${server.url}/api/auth/spotify`);
    const state = new URL(start.location ?? '').searchParams.get('state');
    const noCode = await browser.get(`${server.url}/api/spotify/callback?state=${state}`);
    expect(noCode.location).toBe(`${server.url}/login?error=spotify_no_code`);

    standIn.failProfileStatus = 500;
    final = await new TestBrowser().follow(`${server.url}/api/auth/spotify`, server.url);
    expect(`${final.pathname}${final.search}`).toBe('/login?error=spotify_profile_error');
  });

  it('refuses a tampered, replayed or foreign state', async () => {
    const browser = new TestBrowser();
    const start = await browser.get(`${server.url}/api/auth/spotify`);
    const consent = await browser.get(start.location ?? '');
    const callback = new URL(consent.location ?? '');

    // Unknown state.
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'forged-state');
    expect((await browser.get(tampered.toString())).location).toBe(`${server.url}/login?error=spotify_auth_failed`);

    // The right state from another browser (no cookie): refused, and the state is spent.
    const other = new TestBrowser();
    expect((await other.get(callback.toString())).location).toBe(`${server.url}/login?error=spotify_auth_failed`);
    expect((await browser.get(callback.toString())).location).toBe(`${server.url}/login?error=spotify_auth_failed`);

    // A normal run works once; replaying its callback is refused.
    const fresh = new TestBrowser();
    const s2 = await fresh.get(`${server.url}/api/auth/spotify`);
    const c2 = await fresh.get(s2.location ?? '');
    const cookie = [...fresh.cookies];
    const ok = await fresh.get(c2.location ?? '');
    expect(ok.location).toMatch(/\/login\?spotify_code=/);
    for (const [k, v] of cookie) fresh.cookies.set(k, v);
    expect((await fresh.get(c2.location ?? '')).location).toBe(`${server.url}/login?error=spotify_auth_failed`);

    // No state at all.
    expect((await fresh.get(`${server.url}/api/spotify/callback?code=abc`)).location).toBe(
      `${server.url}/login?error=spotify_auth_failed`,
    );
  });

  it("keeps another user away from someone's Spotify", async () => {
    const owner = await server.login();
    const other = await server.login();
    await connectSpotify(server.url, owner.token);
    const base = `/api/users/${owner.user.id}/spotify`;
    const seen = await server.call('GET', base, { token: other.token });
    expect(seen.status).toBe(403);
    expect(seen.text).not.toContain(accountId);
    expect((await server.call('POST', `${base}/sync`, { token: other.token })).status).toBe(403);
    expect((await server.call('DELETE', base, { token: other.token })).status).toBe(403);
    const publicView = await server.call('GET', `/api/users/${owner.user.id}`, { token: other.token });
    expect(publicView.text).not.toContain(accountId);
    const user = await spotifyLinkOf(em(), owner.user.id);
    expect(user.spotifyRefreshToken).not.toBeNull();
  });

  it('disconnect deletes the tokens and the Spotify-sourced entries only', async () => {
    const me = await server.login();
    await connectSpotify(server.url, me.token);
    const fork = em();
    const fromSpotify = fork.create(PodcastSchema, { name: 'From Spotify', spotifyId: uniqueName('show') });
    const byHand = fork.create(PodcastSchema, { name: 'By hand', spotifyId: uniqueName('show') });
    await fork.flush();
    fork.create(UserPodcastSchema, { userId: me.user.id, podcastId: fromSpotify.id, source: 'spotify' });
    fork.create(UserPodcastSchema, { userId: me.user.id, podcastId: byHand.id, source: 'manual' });
    await fork.flush();

    const socket = await server.socket(me.token);
    const updated = nextEvent(socket, 'user:updated');
    const res = await server.call('DELETE', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    // Every tab hears of it: disconnected, still linked for sign-in.
    const [self] = await updated;
    expect(self).toMatchObject({ spotifyConnected: false, spotifyId: accountId, lastSpotifySync: null });
    socket.disconnect();
    const user = await spotifyLinkOf(em(), me.user.id);
    expect(user.spotifyAccessToken).toBeNull();
    expect(user.spotifyRefreshToken).toBeNull();
    expect(user.spotifyTokenExpiry).toBeNull();
    const left = await em().find(UserPodcastSchema, { userId: me.user.id });
    expect(left.map((e) => e.podcastId)).toEqual([byHand.id]);
    const status = await server.call('GET', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(status.json).toMatchObject({ connected: false });
    expect((await server.call('POST', `/api/users/${me.user.id}/spotify/sync`, { token: me.token })).status).toBe(409);
  });
});
