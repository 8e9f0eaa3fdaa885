// An account's ways to sign in over HTTP against real PostgreSQL and Redis: the list, renaming a
// passkey, removing a way in (a fresh proof, never the last one), also through the Spotify
// disconnect and the Bluesky unlink, and two removals racing each other.
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { LoginResponse, SignInWays } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignUpMethod } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { startTestServer, TestClock, type TestServer, uniqueName } from '../../test/harness';
import { PasskeyBrowser } from '../../test/passkey-browser';
import { createUser } from '../users/user.service';
import { WAYS_IN_TEXTS } from './ways-in';

interface Way {
  provider: 'passkey' | 'email' | 'bluesky' | 'spotify';
  subject?: string;
  handle?: string;
  /** Spotify and Bluesky: a stored (fake, encrypted-looking) token, as a connected identity has. */
  token?: boolean;
}

describe('Ways to sign in', () => {
  let server: TestServer;
  let em: EntityManager;

  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  /** An account opened `method`, holding these identities, and a login of it (fresh). */
  async function account(method: SignUpMethod, ways: Way[], on: TestServer = server): Promise<LoginResponse> {
    const fork = em.fork();
    const user = await createUser(fork, { username: uniqueName('ways'), displayName: 'Ways', signUpMethod: method });
    for (const way of ways) {
      await sql(
        fork,
        `insert into user_identities (user_id, provider, subject, handle, access_token, created_at, updated_at)
         values (?, ?, ?, ?, ?, now(), now())`,
        [
          user.id,
          way.provider,
          way.subject ?? `${way.provider}-${randomBytes(8).toString('hex')}`,
          way.handle ?? null,
          way.token ? 'not-a-real-token' : null,
        ],
      );
    }
    const { token } = await on.running.deps.sessions.create(fork, user.id);
    return { token, user: { id: user.id } } as LoginResponse;
  }

  const ways = async (login: LoginResponse): Promise<SignInWays> => {
    const res = await server.call('GET', `/api/users/${login.user.id}/sign-in-ways`, { token: login.token });
    expect(res.status, res.text).toBe(200);
    return res.json;
  };
  const remove = (login: LoginResponse, wayId: number, on: TestServer = server) =>
    on.call('DELETE', `/api/users/${login.user.id}/sign-in-ways/${wayId}`, { token: login.token });
  const identities = (userId: number) =>
    sql<{ id: number; provider: string }>(
      em,
      'select id, provider from user_identities where user_id = ? order by id',
      [userId],
    );

  it('lists passkeys by name, the email address, the Bluesky handle, Spotify, and development login for its own accounts', async () => {
    const dev = await server.login();
    const only = await ways(dev);
    expect(only.ways).toEqual([
      {
        id: null,
        kind: 'devLogin',
        label: `Development login as ${dev.user.username}`,
        createdAt: expect.any(String),
        lastUsedAt: null,
        backedUp: null,
      },
    ]);
    // Just signed in: changing the ways in needs no other proof for ten minutes.
    expect(Date.parse(only.freshUntil ?? '')).toBeGreaterThan(Date.now() + 9 * 60_000);

    await new PasskeyBrowser(server.url).addPasskey(dev, 'Work laptop');
    await sql(
      em,
      `insert into user_identities (user_id, provider, subject, handle, created_at, updated_at) values
         (?, 'spotify', ?, null, now(), now()), (?, 'bluesky', ?, 'maya.example', now(), now()),
         (?, 'email', ?, null, now(), now())`,
      [dev.user.id, uniqueName('spotify'), dev.user.id, `did:plc:${uniqueName('d')}`, dev.user.id, 'maya@example.com'],
    );
    const all = await ways(dev);
    expect(all.ways.map((w) => [w.kind, w.label])).toEqual([
      ['passkey', 'Work laptop'],
      ['email', 'maya@example.com'],
      ['bluesky', '@maya.example'],
      ['spotify', 'Spotify'],
      ['devLogin', `Development login as ${dev.user.username}`],
    ]);
    expect(all.ways[0]).toMatchObject({ backedUp: true, lastUsedAt: expect.any(String), id: expect.any(Number) });
    expect(all.ways[1]).toMatchObject({ backedUp: null, lastUsedAt: null });

    // An account a passkey opened has no development login, whatever mode the server is in.
    const tab = new PasskeyBrowser(server.url);
    const opened = await tab.signUp();
    expect((await ways(opened)).ways.map((w) => w.kind)).toEqual(['passkey']);
  });

  it('renames the owner’s passkeys only: another’s is a 404, another kind a 400', async () => {
    const tab = new PasskeyBrowser(server.url);
    const me = await tab.signUp();
    const [mine] = (await ways(me)).ways;
    const rename = (login: LoginResponse, wayId: number, name: unknown) =>
      server.call('PATCH', `/api/users/${login.user.id}/sign-in-ways/${wayId}`, { token: login.token, body: { name } });
    const renamed = await rename(me, mine?.id as number, '  Phone  ');
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.ways[0].label).toBe('Phone');
    for (const bad of ['', '   ', 'x'.repeat(61), 5]) {
      const res = await rename(me, mine?.id as number, bad);
      expect(res.status).toBe(400);
      expect(res.json.message).toEqual(expect.any(String));
    }
    // Someone else's passkey, asked for through one's own account: not found, not renamed.
    const other = await new PasskeyBrowser(server.url).signUp();
    const [theirs] = (await ways(other)).ways;
    const foreign = await rename(me, theirs?.id as number, 'Mine now');
    expect(foreign.status).toBe(404);
    expect(foreign.json.message).toBe(WAYS_IN_TEXTS.notFound);
    expect((await ways(other)).ways[0]?.label).toBe(theirs?.label);
    // Through their path: the owner rule answers first.
    expect((await rename({ ...other, token: me.token }, theirs?.id as number, 'x')).status).toBe(403);
    // The email address is not renamed here.
    const withEmail = await account('email', [{ provider: 'email', subject: 'a@example.com' }]);
    const [email] = (await ways(withEmail)).ways;
    const res = await rename(withEmail, email?.id as number, 'Work');
    expect(res.status).toBe(400);
  });

  it('never removes the last way in; another account’s way is a 404', async () => {
    const tab = new PasskeyBrowser(server.url);
    const me = await tab.signUp();
    const [only] = (await ways(me)).ways;
    const last = await remove(me, only?.id as number);
    expect(last.status).toBe(409);
    expect(last.json.message).toBe(WAYS_IN_TEXTS.last);
    expect(await identities(me.user.id)).toHaveLength(1);
    expect((await tab.signIn()).status).toBe(200);

    // Another account's identity: 404, and it stays.
    const other = await account('passkey', [{ provider: 'passkey' }, { provider: 'passkey' }]);
    const [theirs] = await identities(other.user.id);
    const foreign = await remove(me, theirs?.id as number);
    expect(foreign.status).toBe(404);
    expect(await identities(other.user.id)).toHaveLength(2);
    // An id nobody holds: 404 too.
    expect((await remove(me, 2_000_000_000)).status).toBe(404);

    // Development login is a way in of the accounts it opened (while it is on): their only passkey may go.
    const dev = await server.login();
    await new PasskeyBrowser(server.url).addPasskey(dev);
    const [passkey] = (await ways(dev)).ways;
    expect((await remove(dev, passkey?.id as number)).status).toBe(200);
  });

  it('with development login off, an account it opened counts its identities only', async () => {
    const off = await startTestServer({ ALLOW_DEV_LOGIN: 'false' });
    try {
      const dev = await account('dev_login', [{ provider: 'passkey' }], off);
      const listed = await off.call('GET', `/api/users/${dev.user.id}/sign-in-ways`, { token: dev.token });
      expect(listed.json.ways.map((w: { kind: string }) => w.kind)).toEqual(['passkey']);
      const res = await remove(dev, listed.json.ways[0].id, off);
      expect(res.status).toBe(409);
    } finally {
      await off.close();
    }
  });

  it('removing a way in needs a fresh proof', async () => {
    const clock = new TestClock();
    const timed = await startTestServer({}, { clock: clock.now, setTimer: clock.setTimer });
    try {
      const tab = new PasskeyBrowser(timed.url);
      const me = await tab.signUp();
      await new PasskeyBrowser(timed.url).addPasskey(me);
      const [first] = (await tab.ways(me)).ways;
      clock.advance(11 * 60_000);
      const stale = await tab.removeWay(me, first?.id as number);
      expect(stale.status).toBe(403);
      expect(stale.json.error).toBe('reauth_required');
      expect((await tab.ways(me)).ways).toHaveLength(2);
      expect((await tab.reauth(me)).status).toBe(200);
      const fresh = await tab.removeWay(me, first?.id as number);
      expect(fresh.status, fresh.text).toBe(200);
      expect(fresh.json.ways).toHaveLength(1);
    } finally {
      await timed.close();
    }
  });

  it('two removals of an account’s last two ways at once leave one (20 accounts at once, four times the pool)', async () => {
    const people = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        account(
          'passkey',
          i % 2 === 0
            ? [{ provider: 'passkey' }, { provider: 'passkey' }]
            : [{ provider: 'passkey' }, { provider: 'email' }],
        ),
      ),
    );
    const outcomes = await Promise.all(
      people.map(async (person) => {
        const held = await identities(person.user.id);
        const answers = await Promise.all(held.map((identity) => remove(person, identity.id)));
        return { answers: answers.map((a) => a.status).sort(), left: (await identities(person.user.id)).length };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome.answers).toEqual([200, 409]);
      expect(outcome.left).toBe(1);
    }
  });

  it('a removal racing a Bluesky unlink leaves one of the two ways', async () => {
    const people = await Promise.all(
      Array.from({ length: 15 }, () =>
        account('bluesky', [{ provider: 'passkey' }, { provider: 'bluesky', subject: `did:plc:${uniqueName('r')}` }]),
      ),
    );
    const outcomes = await Promise.all(
      people.map(async (person) => {
        const [passkey] = await identities(person.user.id);
        const answers = await Promise.all([
          remove(person, passkey?.id as number),
          server.call('DELETE', `/api/users/${person.user.id}/bluesky`, { token: person.token }),
        ]);
        return { answers: answers.map((a) => a.status).sort(), left: (await identities(person.user.id)).length };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome.answers).toEqual([200, 409]);
      expect(outcome.left).toBe(1);
    }
  });

  it('the Bluesky unlink never takes the last way in', async () => {
    const did = `did:plc:${uniqueName('only')}`;
    const person = await account('bluesky', [{ provider: 'bluesky', subject: did, handle: 'only.example' }]);
    const unlink = () => server.call('DELETE', `/api/users/${person.user.id}/bluesky`, { token: person.token });
    const refused = await unlink();
    expect(refused.status).toBe(409);
    expect(refused.json.message).toBe(WAYS_IN_TEXTS.last);
    expect((await identities(person.user.id)).map((i) => i.provider)).toEqual(['bluesky']);
    // Through the list as well.
    const [bluesky] = (await ways(person)).ways;
    expect((await remove(person, bluesky?.id as number)).status).toBe(409);

    // With a passkey beside it, the unlink goes through.
    await new PasskeyBrowser(server.url).addPasskey(person);
    const done = await unlink();
    expect(done.status, done.text).toBe(200);
    expect((await identities(person.user.id)).map((i) => i.provider)).toEqual(['passkey']);
    // Not linked any more: unlinking again changes nothing and is no error.
    expect((await unlink()).status).toBe(200);
  });

  it('the Spotify disconnect keeps the Spotify sign-in; removing Spotify as a way in is the last-way rule’s', async () => {
    const person = await account('spotify', [{ provider: 'spotify', token: true }]);
    const [podcast] = await sql<{ id: number }>(
      em,
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [uniqueName('show')],
    );
    const [manual] = await sql<{ id: number }>(
      em,
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [uniqueName('show')],
    );
    const addEntry = (podcastId: number, source: string) =>
      sql(
        em,
        `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
         values (?, ?, ?, 0, false, now())`,
        [person.user.id, podcastId, source],
      );
    await addEntry(podcast?.id as number, 'spotify');
    await addEntry(manual?.id as number, 'manual');

    // Disconnecting forgets the tokens and the synced shows; the identity stays as the sign-in.
    const disconnected = await server.call('DELETE', `/api/users/${person.user.id}/spotify`, { token: person.token });
    expect(disconnected.status, disconnected.text).toBe(200);
    expect((await ways(person)).ways.map((w) => w.kind)).toEqual(['spotify']);
    const [spotify] = (await ways(person)).ways;
    const last = await remove(person, spotify?.id as number);
    expect(last.status).toBe(409);
    expect(last.json.message).toBe(WAYS_IN_TEXTS.last);

    // With a passkey too, Spotify can go as a way in: the identity and the shows its sync added.
    await addEntry(podcast?.id as number, 'spotify');
    await new PasskeyBrowser(server.url).addPasskey(person);
    const gone = await remove(person, spotify?.id as number);
    expect(gone.status, gone.text).toBe(200);
    expect(gone.json.ways.map((w: { kind: string }) => w.kind)).toEqual(['passkey']);
    const entries = await sql<{ source: string }>(em, 'select source from user_podcasts where user_id = ?', [
      person.user.id,
    ]);
    expect(entries.map((e) => e.source)).toEqual(['manual']);
  });
});
