// Sign in with Bluesky (docs/auth.md) against the AT Protocol stand-in, the browser played by
// following the redirects by hand: start -> the stand-in's authorize -> our callback ->
// /login?bluesky_code=code -> the exchange. Two server instances share the database and Redis.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BLUESKY_TEXTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { AtprotoStandIn, standInDid } from '../../test/bluesky-stand-in';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';

const CALLBACK = 'http://127.0.0.1/api/bluesky/callback';
const cookieOf = (headers: Headers) => (headers.get('set-cookie') ?? '').split(';')[0] ?? '';

describe('sign in with Bluesky', () => {
  let standIn: AtprotoStandIn;
  let a: TestServer;
  let b: TestServer;
  const em = () => a.running.deps.orm.em.fork() as EntityManager;

  beforeAll(async () => {
    standIn = await new AtprotoStandIn().start();
    const env = {
      ATPROTO_PLC_URL: standIn.url,
      ATPROTO_HANDLE_RESOLVER: standIn.url,
      ATPROTO_CALLBACK_URL: CALLBACK,
      // Instances of one deployment share the key of secrets at rest (the OAuth states, the sessions).
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    };
    [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await standIn?.close();
  });

  const handleOf = (label: string) =>
    `${uniqueName(label)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')}.test`;

  /** Starts on `start`, approves at the stand-in, comes back to `back`'s callback: the login URL it leads to. */
  async function approve(handle: string, start: TestServer, back: TestServer, { sameBrowser = true } = {}) {
    const begun = await start.call('POST', '/api/auth/bluesky/start', { body: { handle } });
    expect(begun.status, begun.text).toBe(200);
    const consent = await fetch(new URL(begun.json.url as string), { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const answer = await fetch(`${back.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: sameBrowser ? { cookie: cookieOf(begun.headers) } : {},
    });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location') ?? '', back.url);
    expect(location.pathname).toBe('/login');
    return location;
  }

  it('a new DID gets an account with its verified handle; signing in again opens the same one', async () => {
    const handle = handleOf('bsky-new');
    const first = await approve(handle, a, b);
    const code = first.searchParams.get('bluesky_code');
    expect(code).toMatch(/^[\w-]{43}$/);
    const signedIn = await a.call('POST', '/api/auth/bluesky/exchange', { body: { code } });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.json.user.setupComplete).toBe(false);
    const [identity] = await sql<{ subject: string; handle: string; user_id: number }>(
      em(),
      `select subject, handle, user_id from user_identities where provider = 'bluesky' and user_id = ?`,
      [signedIn.json.user.id],
    );
    expect(identity).toMatchObject({ subject: standInDid(handle), handle });
    const me = await a.call('GET', `/api/users/${signedIn.json.user.id}`, { token: signedIn.json.token });
    expect(me.status).toBe(200);
    expect(JSON.stringify(me.json)).toContain(handle);

    // The code is single use.
    const again = await b.call('POST', '/api/auth/bluesky/exchange', { body: { code } });
    expect(again.status).toBe(400);
    expect(again.json.message).toBe(BLUESKY_TEXTS.signInExpired);

    const second = await approve(handle, b, a);
    const reopened = await b.call('POST', '/api/auth/bluesky/exchange', {
      body: { code: second.searchParams.get('bluesky_code') },
    });
    expect(reopened.status).toBe(200);
    expect(reopened.json.user.id).toBe(signedIn.json.user.id);
    const [{ count }] = (await sql<{ count: string }>(
      em(),
      `select count(*) from user_identities where provider = 'bluesky' and subject = ?`,
      [standInDid(handle)],
    )) as [{ count: string }];
    expect(Number(count)).toBe(1);
  });

  it('an account whose Bluesky grant ended still signs in with Bluesky: the DID stays its way in', async () => {
    standIn.accessTtlSeconds = 5;
    try {
      const handle = handleOf('bsky-ended');
      const first = await approve(handle, a, a);
      const me = await a.call('POST', '/api/auth/bluesky/exchange', {
        body: { code: first.searchParams.get('bluesky_code') },
      });
      expect(me.status).toBe(200);
      // The person revokes the app at their server: the next refresh is refused and the link ends.
      standIn.revokeRefreshTokens(standInDid(handle));
      const ended = await a.call('GET', `/api/users/${me.json.user.id}/bluesky`, { token: me.json.token });
      expect(ended.json).toMatchObject({ linked: false, message: BLUESKY_TEXTS.ended });
      const again = await approve(handle, a, a);
      const back = await a.call('POST', '/api/auth/bluesky/exchange', {
        body: { code: again.searchParams.get('bluesky_code') },
      });
      expect(back.status, back.text).toBe(200);
      expect(back.json.user.id).toBe(me.json.user.id);
      const status = await a.call('GET', `/api/users/${me.json.user.id}/bluesky`, { token: back.json.token });
      expect(status.json).toMatchObject({ linked: true, handle });
    } finally {
      standIn.accessTtlSeconds = 3600;
    }
  });

  it('an approval that comes back in another browser signs nobody in', async () => {
    const location = await approve(handleOf('bsky-other'), a, a, { sameBrowser: false });
    expect(location.searchParams.get('bluesky_code')).toBeNull();
    expect(location.searchParams.get('bluesky_error')).toBe('other_browser');
  });

  it('a handle that does not resolve is a sentence, not a 5xx', async () => {
    const res = await a.call('POST', '/api/auth/bluesky/start', { body: { handle: 'nobody.invalid' } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json.message).toEqual(expect.any(String));
  });

  it('six sign-ins of one new DID exchanged at once, on two instances, make one account', async () => {
    const handle = handleOf('bsky-race');
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await approve(handle, a, a)).searchParams.get('bluesky_code'));
    const answers = await Promise.all(
      codes.map((code, i) => (i % 2 ? a : b).call('POST', '/api/auth/bluesky/exchange', { body: { code } })),
    );
    expect(answers.map((res) => res.status)).toEqual(codes.map(() => 200));
    expect(new Set(answers.map((res) => res.json.user.id)).size).toBe(1);
  });
});
