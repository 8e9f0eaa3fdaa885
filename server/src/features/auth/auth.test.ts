import type { EntityManager } from '@mikro-orm/postgresql';
import { SelfUserSchema } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { sql } from '../../core/db/sql';
import { nextEvent, startTestServer, TestClock, type TestServer, testEnv, uniqueName } from '../../test/harness';
import { createUser } from '../users/user.service';

const SECRET_FIELDS = [
  'password',
  'spotifyAccessToken',
  'spotifyRefreshToken',
  'atpAccessToken',
  'atpRefreshToken',
  'token',
];

describe('dev login', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('creates the user on first login and returns a token and the self view', async () => {
    const username = uniqueName('Alex');
    const res = await server.call('POST', '/api/auth/dev-login', { body: { username } });
    expect(res.status).toBe(200);
    expect(res.json.token).toMatch(/^[\w-]{40,}$/);
    const user = SelfUserSchema.parse(res.json.user);
    expect(user.username).toBe(username);
    expect(user.displayName).toBe(username);
    expect(user.intent).toBe('romantic');
    for (const field of SECRET_FIELDS) expect(res.json.user).not.toHaveProperty(field);

    const again = await server.call('POST', '/api/auth/dev-login', { body: { username } });
    expect(again.json.user.id).toBe(user.id);
    expect(again.json.token).not.toBe(res.json.token);
  });

  it('lets the token read the user, and refuses a missing or wrong token', async () => {
    const { token, user } = await server.login();
    const ok = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(ok.status).toBe(200);
    expect(ok.json.username).toBe(user.username);

    const none = await server.call('GET', `/api/users/${user.id}`);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: 'unauthorized', message: expect.any(String) });

    const wrong = await server.call('GET', `/api/users/${user.id}`, { token: `${token}x` });
    expect(wrong.status).toBe(401);
    const malformed = await server.call('GET', `/api/users/${user.id}`, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
  });

  it.each([
    [{}, 'Username required.'],
    [{ username: '' }, 'Username required.'],
    [{ username: '   ' }, 'Username required.'],
    [{ username: 42 }, 'Username required.'],
    [{ username: 'a'.repeat(41) }, 'Usernames can be at most 40 characters.'],
    [{ username: 'bad name!' }, 'Usernames can contain only letters, digits, dots, dashes and underscores.'],
    [{ username: 'ok', role: 'admin' }, 'This request has a field we do not accept: role.'],
  ])('rejects %j with a 400 and a message for people', async (body, message) => {
    const res = await server.call('POST', '/api/auth/dev-login', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('bad_request');
    expect(res.json.message).toBe(message);
    expect(res.json.issues?.[0]).toEqual({ path: expect.stringMatching(/^body/), message });
  });

  it('answers malformed JSON with 400 and an oversized body with 413', async () => {
    const bad = await server.call('POST', '/api/auth/dev-login', { rawBody: '{"username": ' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_json');
    const huge = await server.call('POST', '/api/auth/dev-login', {
      rawBody: JSON.stringify({ username: 'x'.repeat(200_000) }),
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error).toBe('payload_too_large');
  });

  it('logout revokes the token', async () => {
    const { token, user } = await server.login();
    const out = await server.call('POST', '/api/auth/logout', { token });
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ ok: true });
    const after = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(after.status).toBe(401);
    const twice = await server.call('POST', '/api/auth/logout', { token });
    expect(twice.status).toBe(401);
  });

  it('logs out everywhere: every login of the caller ends and their sockets are told, nobody else is touched', async () => {
    const username = uniqueName('everywhere');
    const phone = await server.login(username);
    const laptop = await server.login(username);
    const other = await server.login();
    const socket = await server.socket(laptop.token);
    const ended = nextEvent(socket, 'session:ended');
    const res = await server.call('POST', '/api/auth/logout-everywhere', { token: phone.token });
    expect([res.status, res.json]).toEqual([200, { ok: true }]);
    expect(await ended).toEqual(['logout']);
    for (const token of [phone.token, laptop.token]) {
      expect((await server.call('GET', `/api/users/${phone.user.id}`, { token })).status).toBe(401);
    }
    expect((await server.call('GET', `/api/users/${other.user.id}`, { token: other.token })).status).toBe(200);
    expect((await server.call('POST', '/api/auth/logout-everywhere')).status).toBe(401);
  });

  it('sends the browser back to login with the SPEC error while Spotify is not configured', async () => {
    const res = await fetch(`${server.url}/api/auth/spotify`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?error=missing_spotify_credentials');
  });

  it('answers unknown API paths with a JSON 404', async () => {
    const res = await server.call('GET', '/api/nope');
    expect(res.status).toBe(404);
    expect(res.json.error).toBe('not_found');
  });
});

describe('maximum login lifetime', () => {
  let server: TestServer;
  const clock = new TestClock();
  beforeAll(async () => {
    server = await startTestServer(
      { TOKEN_ROTATE_AFTER_SECONDS: '3600', TOKEN_ROTATION_GRACE_SECONDS: '60', TOKEN_MAX_LIFETIME_DAYS: '1' },
      { clock: clock.now },
    );
  });
  afterAll(() => server.close());

  it('ends a login a day after it began however often its token was rotated', async () => {
    const { token: first, user } = await server.login();
    let token = first;
    let rotations = 0;
    // Used every hour and a bit: each use past the hour rotates; the login still ends at 24 h.
    for (let hour = 1; hour < 24; hour++) {
      clock.advance(3601 * 1000);
      const res = await server.call('GET', `/api/users/${user.id}`, { token });
      expect(res.status, `hour ${hour}`).toBe(200);
      const fresh = res.headers.get('x-new-token');
      if (fresh) {
        token = fresh;
        rotations++;
      }
    }
    expect(rotations).toBeGreaterThan(20);
    clock.advance(3601 * 1000);
    const expired = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(expired.status).toBe(401);
  });
});

describe('token rotation', () => {
  let server: TestServer;
  const clock = new TestClock();
  const ROTATE_AFTER_S = 3600;
  const GRACE_S = 60;
  beforeAll(async () => {
    server = await startTestServer(
      { TOKEN_ROTATE_AFTER_SECONDS: String(ROTATE_AFTER_S), TOKEN_ROTATION_GRACE_SECONDS: String(GRACE_S) },
      { clock: clock.now },
    );
  });
  afterAll(() => server.close());

  it('returns a fresh token in X-New-Token once the old one is due, and the old one then expires', async () => {
    const { token, user } = await server.login();
    clock.advance((ROTATE_AFTER_S - 1) * 1000);
    const early = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(early.headers.get('x-new-token')).toBeNull();

    clock.advance(2000);
    const due = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(due.status).toBe(200);
    const fresh = due.headers.get('x-new-token');
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(token);

    // Only one rotation per token, even for requests in flight; the old token still works in the grace period.
    const inFlight = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(inFlight.status).toBe(200);
    expect(inFlight.headers.get('x-new-token')).toBeNull();

    const withFresh = await server.call('GET', `/api/users/${user.id}`, { token: fresh! });
    expect(withFresh.status).toBe(200);

    clock.advance((GRACE_S + 1) * 1000);
    const old = await server.call('GET', `/api/users/${user.id}`, { token });
    expect(old.status).toBe(401);
    expect((await server.call('GET', `/api/users/${user.id}`, { token: fresh! })).status).toBe(200);
  });

  it('logout with the rotated token also ends the earlier token of the same login', async () => {
    const { token, user } = await server.login();
    clock.advance((ROTATE_AFTER_S + 1) * 1000);
    const due = await server.call('GET', `/api/users/${user.id}`, { token });
    const fresh = due.headers.get('x-new-token')!;
    expect(fresh).toBeTruthy();
    await server.call('POST', '/api/auth/logout', { token: fresh });
    expect((await server.call('GET', `/api/users/${user.id}`, { token })).status).toBe(401);
    expect((await server.call('GET', `/api/users/${user.id}`, { token: fresh })).status).toBe(401);
  });
});

describe('production mode', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ NODE_ENV: 'production' });
  });
  afterAll(() => server.close());

  it('has no dev login', async () => {
    const res = await server.call('POST', '/api/auth/dev-login', { body: { username: 'someone' } });
    expect(res.status).toBe(404);
    expect(res.json.error).toBe('not_found');
  });

  it('answers an internal failure with a JSON error and no stack trace', async () => {
    // Break the database connection under the running server to force a real failure.
    await server.running.deps.orm.close(true);
    const res = await server.call('GET', '/api/users/1', { headers: {} });
    // Without a token authentication is skipped; with one, the failed lookup is a server error.
    const withToken = await server.call('GET', '/api/users/1', { token: 'a'.repeat(43) });
    for (const r of [withToken]) {
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ error: 'internal_error', message: expect.any(String) });
      expect(r.text).not.toMatch(/at .*\.(ts|js):\d+/);
      expect(r.text).not.toContain('stack');
    }
    expect(res.status).toBe(401);
  });
});

describe('dev login fails closed', () => {
  it('is off when NODE_ENV is not set at all', async () => {
    expect(loadConfig({ ...testEnv(), NODE_ENV: undefined }).allowDevLogin).toBe(false);
    const server = await startTestServer({ NODE_ENV: undefined });
    try {
      const res = await server.call('POST', '/api/auth/dev-login', { body: { username: uniqueName() } });
      expect(res.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('never opens an account made by Spotify sign-in or by the demo seed, whatever the username', async () => {
    const server = await startTestServer();
    try {
      const em = server.running.deps.orm.em.fork() as EntityManager;
      for (const signUpMethod of ['spotify', 'demo'] as const) {
        const username = uniqueName(signUpMethod);
        const victim = await createUser(em.fork() as EntityManager, { username, displayName: 'Victim', signUpMethod });
        const res = await server.call('POST', '/api/auth/dev-login', { body: { username } });
        expect(res.status).toBe(403);
        expect(res.json.token).toBeUndefined();
        expect(res.text).not.toContain(String(victim.id));
        const [sessions] = await sql<{ n: number }>(em, 'select count(*)::int as n from sessions where user_id = ?', [
          victim.id,
        ]);
        expect(sessions?.n).toBe(0);
      }
      // An account dev login made itself still opens.
      const username = uniqueName('dev');
      const first = await server.call('POST', '/api/auth/dev-login', { body: { username } });
      const again = await server.call('POST', '/api/auth/dev-login', { body: { username } });
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.json.user.id).toBe(first.json.user.id);
    } finally {
      await server.close();
    }
  });
});

describe('dev login explicitly enabled in production', () => {
  it('is available when ALLOW_DEV_LOGIN=true', async () => {
    const server = await startTestServer({ NODE_ENV: 'production', ALLOW_DEV_LOGIN: 'true' });
    try {
      expect((await server.call('POST', '/api/auth/dev-login', { body: { username: uniqueName() } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
