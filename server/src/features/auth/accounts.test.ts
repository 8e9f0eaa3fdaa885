// Usernames compare ignoring case (one account per name, whatever the capitals, even when logins
// race), and validation errors answer with a sentence for people.
import type { EntityManager } from '@mikro-orm/postgresql';
import { LIMITS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';
import { findOrCreateSpotifyUser } from '../spotify/spotify.service';
import { createUser } from '../users/user.service';

describe('usernames ignore case', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  const login = (username: string) => server.call('POST', '/api/auth/dev-login', { body: { username } });
  const accountsNamed = async (username: string) => {
    const [row] = await sql<{ n: number }>(
      em,
      'select count(*)::int as n from users where lower(username) = lower(?)',
      [username],
    );
    return row?.n;
  };

  it('gives a first Spotify sign-in a free username when a dev login holds it in other capitals', async () => {
    const spotifyId = uniqueName('sp').replace(/_/g, '');
    const squatter = await login(`SPOTIFY_${spotifyId}`);
    expect(squatter.status).toBe(200);
    const { user, created } = await findOrCreateSpotifyUser(
      em.fork() as EntityManager,
      {
        id: spotifyId,
        display_name: 'Spotify person',
      } as never,
    );
    expect(created).toBe(true);
    expect(user.id).not.toBe(squatter.json.user.id);
    expect(user.username.toLowerCase()).not.toBe(`spotify_${spotifyId}`.toLowerCase());
  });

  it('logs "maya_x" and "MAYA_X" into the account "Maya_x" opened, which keeps its name', async () => {
    const name = uniqueName('Maya');
    const first = await login(name);
    expect(first.status).toBe(200);
    for (const variant of [name.toLowerCase(), name.toUpperCase(), ` ${name.toLowerCase()} `]) {
      const again = await login(variant);
      expect(again.status, variant).toBe(200);
      expect(again.json.user.id, variant).toBe(first.json.user.id);
      expect(again.json.user.username, variant).toBe(name);
      expect(again.json.user.displayName, variant).toBe(name);
    }
    expect(await accountsNamed(name)).toBe(1);
  });

  it('makes exactly one account when 20 logins of one name in mixed case race (twice the pool, three times over)', async () => {
    for (let round = 0; round < 3; round++) {
      const name = uniqueName(`Race${round}`);
      const alternating = [...name].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
      const spellings = [name, name.toLowerCase(), name.toUpperCase(), alternating];
      const variants = Array.from({ length: 20 }, (_, i) => spellings[i % spellings.length] as string);
      const answers = await Promise.all(variants.map(login));
      expect(answers.map((a) => a.status)).toEqual(variants.map(() => 200));
      expect(new Set(answers.map((a) => a.json.user.id)).size).toBe(1);
      expect(await accountsNamed(name)).toBe(1);
      const [profiles] = await sql<{ n: number }>(
        em,
        'select count(*)::int as n from user_profiles where user_id = ?',
        [answers[0]?.json.user.id],
      );
      expect(profiles?.n).toBe(3);
    }
  });

  it('refuses a Spotify account under any capitals, and the database refuses a second spelling', async () => {
    const username = uniqueName('spotify');
    await createUser(em.fork() as EntityManager, { username, displayName: 'Victim', signUpMethod: 'spotify' });
    const res = await login(username.toUpperCase());
    expect(res.status).toBe(403);
    expect(res.json.token).toBeUndefined();
    await expect(
      createUser(em.fork() as EntityManager, {
        username: username.toUpperCase(),
        displayName: 'Twin',
        signUpMethod: 'dev_login',
      }),
    ).rejects.toThrow(/users_username_lower_unique/);
  });
});

describe('validation errors speak to people', () => {
  let server: TestServer;
  let me: { token: string; id: number };
  beforeAll(async () => {
    server = await startTestServer();
    const { token, user } = await server.login();
    me = { token, id: user.id };
  });
  afterAll(() => server.close());

  it('answers a too-long username with "Usernames can be at most 40 characters."', async () => {
    const res = await server.call('POST', '/api/auth/dev-login', {
      body: { username: 'a'.repeat(LIMITS.usernameMaxLength + 1) },
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: 'bad_request',
      message: 'Usernames can be at most 40 characters.',
      issues: [{ path: 'body.username', message: 'Usernames can be at most 40 characters.' }],
    });
  });

  it.each([
    ['an empty display name', { displayName: ' ' }, 'Display name is required.'],
    ['a too-long display name', { displayName: 'x'.repeat(61) }, 'Display name can be at most 60 characters.'],
    ['an unknown intent', { intent: 'dating' }, 'Choose a valid intent: romantic, platonic, professional.'],
    ['a tagline of the wrong type', { romanticTagline: 5 }, 'That is not a valid romantic tagline.'],
    [
      'an out-of-range preference',
      { matchPreferences: { minMatchPercentage: 101 } },
      'Min match percentage can be at most 100.',
    ],
    [
      'an unknown field',
      { username: 'new', isDemo: true },
      'This request has fields we do not accept: username, isDemo.',
    ],
  ])('answers %s in a profile change with a sentence', async (_label, body, message) => {
    const res = await server.call('PUT', `/api/users/${me.id}`, { token: me.token, body });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
  });

  it('words path and query errors as sentences too', async () => {
    const badId = await server.call('GET', '/api/users/abc', { token: me.token });
    expect(badId.status).toBe(400);
    expect(badId.json.message).toBe('User id must be a number.');
    expect(badId.json.issues[0].path).toBe('params.userId');
    const badIntent = await server.call('GET', `/api/users/${me.id}/feed?intent=dating`, { token: me.token });
    expect(badIntent.status).toBe(400);
    expect(badIntent.json.message).toBe('Choose a valid intent: romantic, platonic, professional.');
    for (const res of [badId, badIntent]) expect(res.json.message).not.toMatch(/^Invalid|params\.|query\./);
  });
});
