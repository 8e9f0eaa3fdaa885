import type { EntityManager } from '@mikro-orm/postgresql';
import { PublicUserSchema } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserProfileSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { recomputeUser } from '../../core/matching/precompute';
import { forgetCandidates, shareAShow } from '../../test/feed-fixture';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';

const PRIVATE_FIELDS = [
  'username',
  'password',
  'spotifyId',
  'spotifyConnected',
  'spotifyAccessToken',
  'spotifyRefreshToken',
  'lastSpotifySync',
  'atpDid',
  'atpHandle',
  'atpAccessToken',
  'atpRefreshToken',
  'matchPreferences',
  'createdAt',
];

describe('users', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** b with a tagline per intent, sharing three fresh shows with a, so each is in the other's feed. */
  async function neighbours() {
    const a = await server.login();
    const b = await server.login();
    await server.call('PUT', `/api/users/${b.user.id}`, {
      token: b.token,
      body: {
        romanticTagline: 'Dating tagline',
        platonicTagline: 'Friends tagline',
        professionalTagline: 'Work tagline',
      },
    });
    const em = server.running.deps.orm.em.fork() as EntityManager;
    for (let i = 0; i < 3; i++) {
      const [show] = await sql<{ id: number }>(
        em,
        `insert into podcasts (name, created_at) values (?, now()) returning id`,
        [uniqueName('show')],
      );
      for (const p of [a, b]) {
        await sql(
          em,
          'insert into user_podcasts (user_id, podcast_id, hidden, times_listened) values (?, ?, false, 3)',
          [p.user.id, show?.id],
        );
      }
    }
    await recomputeUser(em.fork() as EntityManager, a.user.id);
    await recomputeUser(em.fork() as EntityManager, b.user.id);
    return { a, b };
  }

  it('shows another person only to someone who has them in their feed, and only for the intent in view', async () => {
    const { a, b } = await neighbours();
    const res = await server.call('GET', `/api/users/${b.user.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(Object.keys(PublicUserSchema.shape).sort());
    for (const field of PRIVATE_FIELDS) expect(res.json).not.toHaveProperty(field);
    expect(res.json).toMatchObject({
      displayName: b.user.displayName,
      intent: 'romantic',
      tagline: 'Dating tagline',
      romanticTagline: 'Dating tagline',
      platonicTagline: null,
      professionalTagline: null,
    });
    const work = await server.call('GET', `/api/users/${b.user.id}?intent=professional`, { token: a.token });
    expect(work.json).toMatchObject({ intent: 'professional', tagline: 'Work tagline', romanticTagline: null });
    // Not active for that intent: not in the feed of it, so not visible through it.
    await sql(
      server.running.deps.orm.em.fork() as EntityManager,
      `update user_profiles set active = false where user_id = ? and intent = 'platonic'`,
      [b.user.id],
    );
    expect((await server.call('GET', `/api/users/${b.user.id}?intent=platonic`, { token: a.token })).status).toBe(404);
  });

  it('shows a mutual match for the intent of the match, and nobody else at all', async () => {
    const a = await server.login();
    const b = await server.login();
    await server.call('PUT', `/api/users/${b.user.id}`, {
      token: b.token,
      body: { romanticTagline: 'Dating tagline', platonicTagline: 'Friends tagline' },
    });
    const stranger = await server.login();
    const like = (from: typeof a, to: number) =>
      server.call('POST', '/api/matches', {
        token: from.token,
        body: { user1Id: from.user.id, user2Id: to, intent: 'platonic', user1Liked: true },
      });
    // Before they share a show (not in each other's feed): hidden.
    expect((await server.call('GET', `/api/users/${b.user.id}?intent=platonic`, { token: a.token })).status).toBe(404);
    await shareAShow([[a.user, b.user]]);
    await like(a, b.user.id);
    await like(b, a.user.id);
    // Out of each other's candidates again (a later recompute): only the match shows them now.
    await forgetCandidates([[a.user, b.user]]);
    const friend = await server.call('GET', `/api/users/${b.user.id}?intent=platonic`, { token: a.token });
    expect(friend.status).toBe(200);
    expect(friend.json).toMatchObject({
      tagline: 'Friends tagline',
      platonicTagline: 'Friends tagline',
      romanticTagline: null,
    });
    // The match is platonic: the dating presentation stays hidden.
    expect((await server.call('GET', `/api/users/${b.user.id}?intent=romantic`, { token: a.token })).status).toBe(404);
    const refused = await server.call('GET', `/api/users/${b.user.id}?intent=platonic`, { token: stranger.token });
    expect(refused.status).toBe(404);
    expect(refused.json).toEqual({ error: 'not_found', message: 'User not found.' });
  });

  it('refuses to change another user, and leaves them unchanged', async () => {
    const a = await server.login();
    const b = await server.login();
    const res = await server.call('PUT', `/api/users/${b.user.id}`, {
      token: a.token,
      body: { displayName: 'Hijacked', intent: 'professional' },
    });
    expect(res.status).toBe(403);
    const after = await server.call('GET', `/api/users/${b.user.id}`, { token: b.token });
    expect(after.json.displayName).toBe(b.user.displayName);
    expect(after.json.intent).toBe('romantic');
  });

  it('lets the owner change allowed fields and keeps per-intent profiles in step', async () => {
    const a = await server.login();
    const res = await server.call('PUT', `/api/users/${a.user.id}`, {
      token: a.token,
      body: {
        displayName: '  Alex Doe  ',
        intent: 'platonic',
        platonicTagline: 'Up for a pub quiz',
        matchPreferences: { minMatchPercentage: 40 },
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      displayName: 'Alex Doe',
      intent: 'platonic',
      platonicTagline: 'Up for a pub quiz',
      matchPreferences: { minMatchPercentage: 40 },
    });
    const em = server.running.deps.orm.em.fork();
    const profiles = await em.find(UserProfileSchema, { userId: a.user.id }, { orderBy: { intent: 'asc' } });
    expect(profiles).toHaveLength(3);
    expect(profiles.every((p) => p.displayName === 'Alex Doe')).toBe(true);
    expect(profiles.find((p) => p.intent === 'platonic')?.tagline).toBe('Up for a pub quiz');
  });

  it.each([
    [{ password: 'x' }],
    [{ spotifyId: 'someone-else' }],
    [{ spotifyAccessToken: 'x' }],
    [{ id: 1 }],
    [{ username: 'other' }],
    [{ intent: 'ROMANCE' }],
    [{ displayName: '' }],
    [{ displayName: 12 }],
    [{ romanticTagline: 'x'.repeat(161) }],
    [{ matchPreferences: { minMatchPercentage: 101 } }],
  ])('rejects %j from the owner with 400 (allow-list only)', async (body) => {
    const a = await server.login();
    const res = await server.call('PUT', `/api/users/${a.user.id}`, { token: a.token, body });
    expect(res.status).toBe(400);
    expect(res.json.message).toEqual(expect.any(String));
    const after = await server.call('GET', `/api/users/${a.user.id}`, { token: a.token });
    expect(after.json.username).toBe(a.user.username);
    expect(after.json.displayName).toBe(a.user.displayName);
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999'])('answers user id %s with 400', async (id) => {
    const a = await server.login();
    const res = await server.call('GET', `/api/users/${id}`, { token: a.token });
    expect(res.status).toBe(400);
  });

  it('keeps setup progress and quiz answers, and completes setup once', async () => {
    const a = await server.login();
    expect(a.user).toMatchObject({ setupStep: 0, setupComplete: false, quizAnswers: {} });
    const put = (body: unknown) => server.call('PUT', `/api/users/${a.user.id}`, { token: a.token, body });
    const saved = await put({ setupStep: 3, quizAnswers: { when: 'commute', speed: '2x' } });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({
      setupStep: 3,
      setupComplete: false,
      quizAnswers: { when: 'commute', speed: '2x' },
    });
    for (const bad of [
      { setupStep: 5 },
      { setupStep: -1 },
      { setupComplete: false },
      { quizAnswers: { when: 'never' } },
      { quizAnswers: { shoeSize: 'commute' } },
      { quizAnswers: 'all of them' },
    ]) {
      const res = await put(bad);
      expect(res.status).toBe(400);
      expect(res.json.message).toBeTruthy();
    }
    expect((await put({ setupComplete: true })).json).toMatchObject({ setupComplete: true, setupStep: 3 });
    const again = await server.call('GET', `/api/users/${a.user.id}`, { token: a.token });
    expect(again.json).toMatchObject({ setupComplete: true, quizAnswers: { when: 'commute', speed: '2x' } });
    // Another person sees none of it.
    const { a: viewer, b } = await neighbours();
    const seen = await server.call('GET', `/api/users/${b.user.id}`, { token: viewer.token });
    for (const field of ['setupStep', 'setupComplete', 'quizAnswers']) expect(seen.json).not.toHaveProperty(field);
  });

  it('saves setup progress and quiz answers for many people at once, several times the pool', async () => {
    const people = await Promise.all(Array.from({ length: 30 }, () => server.login()));
    const answers = ['commute', 'workout', 'chores'] as const;
    const calls = people.flatMap((p, i) =>
      answers.map((when, j) =>
        server.call('PUT', `/api/users/${p.user.id}`, {
          token: p.token,
          body: { setupStep: (i + j) % 5, quizAnswers: { when }, ...(j === 2 ? { setupComplete: true } : {}) },
        }),
      ),
    );
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses).toEqual(Array(90).fill(200));
    for (const p of people) {
      const me = await server.call('GET', `/api/users/${p.user.id}`, { token: p.token });
      expect(answers).toContain(me.json.quizAnswers.when);
      expect(me.json.setupComplete).toBe(true);
    }
  });

  it('answers a user that does not exist with 404', async () => {
    const a = await server.login();
    const res = await server.call('GET', '/api/users/2147483000', { token: a.token });
    expect(res.status).toBe(404);
  });
});

describe('query strings', () => {
  it('ignores unknown query parameters such as cache busters', async () => {
    const server = await startTestServer();
    try {
      const a = await server.login();
      const res = await server.call('GET', `/api/users/${a.user.id}?_=${Date.now()}`, { token: a.token });
      expect(res.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
