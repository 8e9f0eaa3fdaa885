import { PublicUserSchema } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserProfileSchema } from '../../core/db/entities';
import { startTestServer, type TestServer } from '../../test/harness';

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

  it('shows another user only public fields', async () => {
    const a = await server.login();
    const b = await server.login();
    const res = await server.call('GET', `/api/users/${b.user.id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(Object.keys(PublicUserSchema.shape).sort());
    for (const field of PRIVATE_FIELDS) expect(res.json).not.toHaveProperty(field);
    expect(res.json.displayName).toBe(b.user.displayName);
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
