// Passkeys end to end over HTTP against real PostgreSQL and Redis, with a software authenticator
// (server/src/test/soft-authenticator.ts) doing what the browser and a platform authenticator do.
import type { EntityManager } from '@mikro-orm/postgresql';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { startTestServer, TestClock, type TestServer, until } from '../../test/harness';
import { PasskeyBrowser } from '../../test/passkey-browser';
import { SoftAuthenticator } from '../../test/soft-authenticator';
import { CHALLENGE_COOKIE, CHALLENGE_TEXTS, CHALLENGE_TTL_MS, challengeKey } from './challenges';
import { defaultPasskeyName, PASSKEY_TEXTS } from './passkeys.service';

const SIGN_IN_PATH = '/api/auth/passkey/login';

describe('Passkeys (WebAuthn) with a software authenticator', () => {
  let server: TestServer;
  let em: EntityManager;
  const page = (authenticator?: SoftAuthenticator, options?: { origin?: string; userAgent?: string }) =>
    new PasskeyBrowser(server.url, authenticator, options);
  const passkeyRows = (userId: number) =>
    sql<{
      id: number;
      subject: string;
      handle: string | null;
      public_key: string | null;
      sign_count: string;
      transports: string;
      backed_up: boolean;
      device_type: string;
      last_used_at: string | null;
    }>(
      em,
      `select id, subject, handle, public_key, sign_count, transports, backed_up, device_type, last_used_at
         from user_identities where user_id = ? and provider = 'passkey' order by id`,
      [userId],
    );

  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  it('signs up with a passkey, signs in with it, adds a second, removes the first, signs in with the second', async () => {
    const laptop = page(new SoftAuthenticator(), {
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
    });
    const options = await laptop.signUpOptions();
    // A discoverable credential for this host, user verification preferred, no attestation, nobody named.
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'PodMatch' },
      user: { name: 'PodMatch account', displayName: 'PodMatch account' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      timeout: CHALLENGE_TTL_MS,
    });
    const cookie = laptop.cookieFor('/api/auth/passkey/register/verify');
    expect(cookie?.name).toBe(CHALLENGE_COOKIE);
    expect(cookie?.path).toBe('/api/auth/passkey/register');

    const signedUp = await laptop.call('POST', '/api/auth/passkey/register/verify', {
      body: { response: laptop.authenticator.register(options, laptop.origin) },
    });
    expect(signedUp.status, signedUp.text).toBe(200);
    const account = signedUp.json;
    expect(account.token).toEqual(expect.any(String));
    expect(account.user).toMatchObject({ displayName: 'New member', setupComplete: false });
    const me = await server.call('GET', `/api/users/${account.user.id}`, { token: account.token });
    expect(me.status).toBe(200);
    const [user] = await sql<{ sign_up_method: string }>(em, 'select sign_up_method from users where id = ?', [
      account.user.id,
    ]);
    expect(user?.sign_up_method).toBe('passkey');
    const [first] = await passkeyRows(account.user.id);
    expect(first).toMatchObject({
      subject: laptop.authenticator.credentials[0]?.id,
      handle: 'Chrome on Linux',
      sign_count: '0',
      transports: '["internal","hybrid"]',
      backed_up: true,
      device_type: 'multiDevice',
    });
    expect(first?.public_key).toMatch(/^[\w-]+$/);
    // Signed out: the passkey opens the same account, and its use is recorded.
    const signIn = await laptop.signIn();
    expect(signIn.status, signIn.text).toBe(200);
    expect(signIn.json.user.id).toBe(account.user.id);
    const [used] = await passkeyRows(account.user.id);
    expect(used?.sign_count).toBe('1');
    expect(used?.last_used_at).not.toBeNull();

    // A second device (its own authenticator) joins the account the first sign-in opened.
    const phone = page(new SoftAuthenticator({ backedUp: false }));
    const ways = await phone.addPasskey(signIn.json, 'My phone');
    expect(ways.ways.map((w) => [w.kind, w.label, w.backedUp])).toEqual([
      ['passkey', 'Chrome on Linux', true],
      ['passkey', 'My phone', false],
    ]);

    // The first goes; it opens nothing any more, the second does.
    const firstWay = ways.ways[0]?.id as number;
    const removed = await laptop.removeWay(signIn.json, firstWay);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.json.ways.map((w: { label: string }) => w.label)).toEqual(['My phone']);
    const withRemoved = await laptop.signIn();
    expect(withRemoved.status).toBe(400);
    expect(withRemoved.json.message).toBe(PASSKEY_TEXTS.notRegistered);
    const withSecond = await phone.signIn();
    expect(withSecond.status, withSecond.text).toBe(200);
    expect(withSecond.json.user.id).toBe(account.user.id);
  });

  it('gives the challenge cookie HttpOnly, SameSite=Strict and the ceremony path, for five minutes', async () => {
    const res = await page().call('POST', '/api/auth/passkey/login/options');
    expect(res.status).toBe(200);
    const [line] = res.headers.getSetCookie();
    expect(line).toMatch(new RegExp(`^${CHALLENGE_COOKIE}=[\\w-]{43};`));
    expect(line).toContain('Path=/api/auth/passkey/login;');
    expect(line).toContain('HttpOnly');
    expect(line).toContain('SameSite=Strict');
    expect(line).toContain('Max-Age=300');
    // Plain http (development): not Secure, or the browser would drop it.
    expect(line).not.toContain('Secure');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // A sign-in lists no credentials: any passkey of this site (the button, or autofill).
    expect(res.json.options).toMatchObject({ rpId: 'localhost', userVerification: 'preferred', allowCredentials: [] });
    // Single use and short-lived in Redis too.
    const id = line?.split(';')[0]?.split('=')[1] ?? '';
    const ttl = await server.running.deps.redis.pttl(challengeKey(id));
    expect(ttl).toBeGreaterThan(CHALLENGE_TTL_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(CHALLENGE_TTL_MS);
  });

  it('refuses a replayed challenge: the second use of one answer opens nothing', async () => {
    const tab = page();
    await tab.signUp();
    const options = await tab.signInOptions();
    const cookie = tab.cookieFor(SIGN_IN_PATH);
    const response = tab.authenticator.authenticate(options, tab.origin);
    const first = await tab.call('POST', `${SIGN_IN_PATH}/verify`, { body: { response } });
    expect(first.status, first.text).toBe(200);
    // The browser dropped the cookie (the answer cleared it); a replay sends it again by hand.
    expect(tab.cookieFor(SIGN_IN_PATH)).toBeUndefined();
    const replay = await tab.call('POST', `${SIGN_IN_PATH}/verify`, {
      body: { response },
      headers: { cookie: `${CHALLENGE_COOKIE}=${cookie?.value}` },
    });
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ message: CHALLENGE_TEXTS.used });
    expect(replay.json.token).toBeUndefined();
  });

  it('refuses an expired challenge', async () => {
    const tab = page();
    await tab.signUp();
    const options = await tab.signInOptions();
    const key = challengeKey(tab.cookieFor(SIGN_IN_PATH)?.value ?? '');
    // Its five minutes are up: Redis lets it go (the TTL shortened, then awaited, not slept through).
    const redis = server.running.deps.redis;
    await redis.pexpire(key, 1);
    await until(async () => (await redis.exists(key)) === 0, 'the challenge to expire');
    const res = await tab.call('POST', `${SIGN_IN_PATH}/verify`, {
      body: { response: tab.authenticator.authenticate(options, tab.origin) },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(CHALLENGE_TEXTS.used);
  });

  it('refuses a challenge answered from another browser, which does not hold its cookie', async () => {
    const mine = page();
    const account = await mine.signUp();
    const options = await mine.signInOptions();
    const response = mine.authenticator.authenticate(options, mine.origin);
    // Another browser without a cookie: nothing to check the answer against.
    const elsewhere = page();
    const noCookie = await elsewhere.call('POST', `${SIGN_IN_PATH}/verify`, { body: { response } });
    expect(noCookie.status).toBe(400);
    expect(noCookie.json.message).toBe(CHALLENGE_TEXTS.missing);
    // Another browser with a challenge of its own: the answer is for another challenge.
    await elsewhere.signInOptions();
    const otherChallenge = await elsewhere.call('POST', `${SIGN_IN_PATH}/verify`, { body: { response } });
    expect(otherChallenge.status).toBe(400);
    expect(otherChallenge.json.message).toBe(PASSKEY_TEXTS.failed);
    // The browser that asked still can (its challenge was never spent by the others).
    const own = await mine.call('POST', `${SIGN_IN_PATH}/verify`, { body: { response } });
    expect(own.status, own.text).toBe(200);
    expect(own.json.user.id).toBe(account.user.id);
  });

  it('a challenge for one purpose or one person serves no other', async () => {
    const tab = page();
    const account = await tab.signUp();
    // A sign-in challenge's cookie sent by hand to the sign-up verification (a browser would not send it).
    await tab.signInOptions();
    const signInCookie = tab.cookieFor(SIGN_IN_PATH)?.value;
    const options = await page().signUpOptions();
    const crossed = await tab.call('POST', '/api/auth/passkey/register/verify', {
      body: { response: new SoftAuthenticator().register(options, tab.origin) },
      headers: { cookie: `${CHALLENGE_COOKIE}=${signInCookie}` },
    });
    expect(crossed.status).toBe(400);
    expect(crossed.json.message).toBe(CHALLENGE_TEXTS.other);

    // Someone else's re-authentication challenge, presented with this account's token.
    const other = page();
    const otherAccount = await other.signUp();
    const theirs = await other.reauthOptions(otherAccount);
    expect(theirs.status).toBe(200);
    const res = await tab.call('POST', '/api/auth/reauth/passkey/verify', {
      token: account.token,
      body: { response: other.authenticator.authenticate(theirs.json.options, other.origin) },
      headers: { cookie: `${CHALLENGE_COOKIE}=${other.cookieFor('/api/auth/reauth/passkey')?.value}` },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(CHALLENGE_TEXTS.other);
  });

  it('refuses an answer made for another origin or relying party, and options asked from another site', async () => {
    const tab = page();
    await tab.signUp();
    // The page is ours, but the answer says it was made on a look-alike site (a phishing relay).
    const options = await tab.signInOptions();
    const phished = await tab.call('POST', `${SIGN_IN_PATH}/verify`, {
      body: { response: tab.authenticator.authenticate(options, 'https://podmatch.example.evil') },
    });
    expect(phished.status).toBe(400);
    expect(phished.json.message).toBe(PASSKEY_TEXTS.otherSite);
    // A passkey created for another relying party id than the options named.
    const newcomer = page();
    const signUp = await newcomer.signUpOptions();
    const otherRp = await newcomer.call('POST', '/api/auth/passkey/register/verify', {
      body: {
        response: newcomer.authenticator.register({ ...signUp, rp: { ...signUp.rp, id: 'evil.example' } }, tab.origin),
      },
    });
    expect(otherRp.status).toBe(400);
    expect(otherRp.json.message).toBe(PASSKEY_TEXTS.otherSite);
    // Options asked by a page of another site (its Origin is not the host asked): refused.
    const foreign = await page(undefined, { origin: 'https://evil.example' }).call('POST', `${SIGN_IN_PATH}/options`);
    expect(foreign.status).toBe(400);
    expect(foreign.json.message).toBe(PASSKEY_TEXTS.sameOriginOnly);
    // No Origin at all (not a browser's page, which sends one with every POST): the host asked.
    const bare = await fetch(`${server.url}${SIGN_IN_PATH}/options`, { method: 'POST' });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { options: { rpId: string } }).options.rpId).toBe('localhost');
    // Opened by IP address: WebAuthn takes no IP as relying party id; the answer says what to do.
    const byIp = await fetch(`${server.url.replace('localhost', '127.0.0.1')}${SIGN_IN_PATH}/options`, {
      method: 'POST',
      headers: { origin: server.url.replace('localhost', '127.0.0.1') },
    });
    expect(byIp.status).toBe(400);
    expect(((await byIp.json()) as { message: string }).message).toBe(PASSKEY_TEXTS.ipAddress);
  });

  it('with PUBLIC_URL, the relying party is its host and its origin the only one accepted', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const public_ = await startTestServer({
      PUBLIC_URL: 'https://podmatch.example',
      ATPROTO_PRIVATE_KEY: JSON.stringify(await exportJWK(privateKey)),
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    try {
      // The page at PUBLIC_URL (the proxy in front forwards to this server).
      const real = new PasskeyBrowser(public_.url, new SoftAuthenticator(), { origin: 'https://podmatch.example' });
      const options = await real.signUpOptions();
      expect(options.rp.id).toBe('podmatch.example');
      const line = (await real.call('POST', `${SIGN_IN_PATH}/options`).then((r) => r.headers.getSetCookie()))[0];
      // The site is https: the cookie is Secure.
      expect(line).toContain('Secure');
      const made = await real.call('POST', '/api/auth/passkey/register/verify', {
        body: { response: real.authenticator.register(options, real.origin) },
      });
      expect(made.status, made.text).toBe(200);
      // The same passkey presented by a page at any other origin is refused.
      const local = new PasskeyBrowser(public_.url, real.authenticator);
      const elsewhere = await local.signIn();
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.json.message).toBe(PASSKEY_TEXTS.otherSite);
      const here = await real.signIn();
      expect(here.status, here.text).toBe(200);
    } finally {
      await public_.close();
    }
  });

  it('the login screen offers passkeys on a host name, not on an IP address (without PUBLIC_URL)', async () => {
    const byIp = await fetch(`${server.url.replace('localhost', '127.0.0.1')}/api/auth/methods`);
    expect(((await byIp.json()) as { passkey: boolean }).passkey).toBe(false);
    const byName = await server.call('GET', '/api/auth/methods');
    expect(new URL(server.url).hostname).toBe('localhost');
    expect(byName.json.passkey).toBe(true);
  });

  it('in production without PUBLIC_URL, passkeys answer 503 with a sentence and the login screen does not offer them', async () => {
    const production = await startTestServer({ NODE_ENV: 'production' });
    try {
      const methods = await production.call('GET', '/api/auth/methods');
      expect(methods.json.passkey).toBe(false);
      const tab = new PasskeyBrowser(production.url);
      for (const path of ['/api/auth/passkey/register/options', `${SIGN_IN_PATH}/options`]) {
        const res = await tab.call('POST', path, { body: {} });
        expect(res.status).toBe(503);
        expect(res.json.message).toBe(PASSKEY_TEXTS.unavailable);
      }
      const verify = await tab.call('POST', `${SIGN_IN_PATH}/verify`, { body: { response: { id: 'x' } } });
      expect(verify.status).toBe(503);
    } finally {
      await production.close();
    }
  });

  it('refuses a signature counter that goes backwards (a cloned authenticator), and accepts counterless ones', async () => {
    const tab = page();
    const account = await tab.signUp();
    const credentialId = tab.authenticator.credentials[0]?.id as string;
    for (let i = 0; i < 2; i++) expect((await tab.signIn()).status).toBe(200);
    expect((await passkeyRows(account.user.id))[0]?.sign_count).toBe('2');
    const withCounter = async (counter: number) => {
      const options = await tab.signInOptions();
      return tab.call('POST', `${SIGN_IN_PATH}/verify`, {
        body: { response: tab.authenticator.authenticate(options, tab.origin, { credentialId, counter }) },
      });
    };
    // A copy of the key that was used less: its counter is behind (or equal to) the one seen.
    for (const counter of [1, 2, 0]) {
      const res = await withCounter(counter);
      expect(res.status, `counter ${counter}`).toBe(400);
      expect(res.json.message).toBe(PASSKEY_TEXTS.counter);
    }
    expect((await passkeyRows(account.user.id))[0]?.sign_count).toBe('2');
    expect((await withCounter(3)).status).toBe(200);

    // Many synced passkeys keep no counter (always 0): each use is accepted.
    const synced = page(new SoftAuthenticator({ counts: false }));
    await synced.signUp();
    for (let i = 0; i < 3; i++) expect((await synced.signIn()).status).toBe(200);
  });

  it('re-authenticates with a passkey of the account only, never with another account’s', async () => {
    const clock = new TestClock();
    const timed = await startTestServer({}, { clock: clock.now, setTimer: clock.setTimer });
    try {
      const mine = new PasskeyBrowser(timed.url);
      const me = await mine.signUp();
      const theirs = new PasskeyBrowser(timed.url);
      await theirs.signUp();
      // Eleven minutes after signing in, the login is no longer fresh: adding a passkey needs a proof.
      clock.advance(11 * 60_000);
      const stale = await mine.call('POST', `/api/users/${me.user.id}/passkeys/options`, { token: me.token });
      expect(stale.status).toBe(403);
      expect(stale.json.error).toBe('reauth_required');
      expect((await mine.ways(me)).freshUntil).toBeNull();

      // The options allow this account's passkeys only.
      const options = await mine.reauthOptions(me);
      expect(options.json.options.allowCredentials.map((c: { id: string }) => c.id)).toEqual([
        mine.authenticator.credentials[0]?.id,
      ]);
      // Another account's passkey, answering this account's challenge: refused, nothing confirmed.
      const foreign = await mine.call('POST', '/api/auth/reauth/passkey/verify', {
        token: me.token,
        body: {
          response: theirs.authenticator.authenticate(options.json.options, mine.origin, {
            credentialId: theirs.authenticator.credentials[0]?.id,
          }),
        },
      });
      expect(foreign.status).toBe(400);
      expect(foreign.json.message).toBe(PASSKEY_TEXTS.otherAccount);
      expect((await mine.ways(me)).freshUntil).toBeNull();

      // Its own passkey: fresh for ten minutes, and a passkey can be added.
      const proof = await mine.reauth(me);
      expect(proof.status, proof.text).toBe(200);
      expect(Date.parse(proof.json.freshUntil)).toBe(clock.now() + 10 * 60_000);
      const added = await new PasskeyBrowser(timed.url).addPasskey(me);
      expect(added.ways).toHaveLength(2);
      expect(added.freshUntil).toBe(proof.json.freshUntil);
      // The adding itself checks too: a proof that lapsed between the options and the answer.
      const key = new PasskeyBrowser(timed.url);
      const addOptions = await key.addOptions(me);
      clock.advance(11 * 60_000);
      const late = await key.call('POST', `/api/users/${me.user.id}/passkeys`, {
        token: me.token,
        body: { response: key.authenticator.register(addOptions, key.origin) },
      });
      expect(late.status).toBe(403);
    } finally {
      await timed.close();
    }
  });

  it('re-authentication answers 409 with a sentence for an account without passkeys', async () => {
    const login = await server.login();
    const res = await page().reauthOptions(login);
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(PASSKEY_TEXTS.noPasskey);
  });

  it('adding excludes the account’s passkeys, names the new one, and refuses one already registered', async () => {
    const tab = page(undefined, {
      userAgent:
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    });
    const account = await tab.signUp();
    const options = await tab.addOptions(account);
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([tab.authenticator.credentials[0]?.id]);
    // An honest authenticator refuses to make a second passkey of one account.
    expect(() => tab.authenticator.register(options, tab.origin)).toThrow(/InvalidStateError/);
    // One that answers with the registered credential again: the server refuses it too.
    const again = await tab.call('POST', `/api/users/${account.user.id}/passkeys`, {
      token: account.token,
      body: {
        response: tab.authenticator.register(options, tab.origin, { again: tab.authenticator.credentials[0]?.id }),
      },
    });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe(PASSKEY_TEXTS.alreadyRegistered);
    // Another authenticator in the same browser: named after it, then by number when that is taken.
    const key = new PasskeyBrowser(server.url, new SoftAuthenticator(), {
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Version/18.1 Mobile/15E148 Safari/604.1',
    });
    const ways = await key.addPasskey(account);
    expect(ways.ways.map((w) => w.label)).toEqual(['Safari on iOS', 'Passkey 2']);
  });

  it('names passkeys after the browser and system, else by number', () => {
    const firefoxWindows = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
    const edge = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0 Safari/537.36 Edg/131.0';
    const android = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36';
    const mac = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 Version/18.1 Safari/605.1.15';
    expect(defaultPasskeyName(firefoxWindows, [])).toBe('Firefox on Windows');
    expect(defaultPasskeyName(edge, [])).toBe('Edge on Windows');
    expect(defaultPasskeyName(android, [])).toBe('Chrome on Android');
    expect(defaultPasskeyName(mac, [])).toBe('Safari on macOS');
    expect(defaultPasskeyName('curl/8.5', ['A', 'B'])).toBe('Passkey 3');
    expect(defaultPasskeyName(undefined, [])).toBe('Passkey 1');
  });

  it('answers malformed or unknown credentials with a 400 sentence, never a 5xx', async () => {
    const tab = page();
    await tab.signUp();
    const bodies: unknown[] = [
      { response: { id: 'x' } },
      { response: { id: 5 } },
      { response: {} },
      { response: { id: 'abc', rawId: 'abc', type: 'public-key', response: 'nope' } },
      {
        response: {
          id: 'abc',
          rawId: 'abc',
          type: 'public-key',
          response: { clientDataJSON: '!!', authenticatorData: 1 },
        },
      },
      { response: { id: 'x'.repeat(5000) } },
    ];
    for (const body of bodies) {
      for (const path of [`${SIGN_IN_PATH}/verify`, '/api/auth/passkey/register/verify']) {
        await tab.call('POST', path.replace('/verify', '/options'), {
          body: path.includes('register') ? {} : undefined,
        });
        const res = await tab.call('POST', path, { body });
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 80)}: ${res.text}`).toBe(400);
        expect(res.json.message).toEqual(expect.any(String));
      }
    }
    // A passkey this site never registered (made, never sent).
    const stranger = page();
    stranger.authenticator.register(await stranger.signUpOptions(), stranger.origin);
    const unknown = await stranger.signIn();
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe(PASSKEY_TEXTS.notRegistered);
  });

  it('50 people signing up with passkeys at once (five times the pool) get 50 accounts, no 5xx', async () => {
    const people = Array.from({ length: 50 }, () => page());
    const started = performance.now();
    const results = await Promise.all(
      people.map(async (person) => {
        const options = await person.signUpOptions();
        return person.call('POST', '/api/auth/passkey/register/verify', {
          body: { response: person.authenticator.register(options, person.origin) },
        });
      }),
    );
    const ms = Math.round(performance.now() - started);
    expect(results.map((r) => r.status)).toEqual(people.map(() => 200));
    const ids = new Set(results.map((r) => r.json.user.id as number));
    expect(ids.size).toBe(50);
    const [count] = await sql<{ n: number }>(
      em,
      `select count(*)::int as n from user_identities where provider = 'passkey' and user_id = any(?::int[])`,
      [`{${[...ids].join(',')}}`],
    );
    expect(count?.n).toBe(50);
    // And each signs in with theirs, all at once.
    const signIns = await Promise.all(people.map((person) => person.signIn()));
    expect(signIns.map((r) => r.status)).toEqual(people.map(() => 200));
    console.info(`50 passkey sign-ups at once: ${ms} ms`);
  });
});
