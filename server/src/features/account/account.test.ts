import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountExportSchema, type LoginResponse } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { recomputeUser } from '../../core/matching/precompute';
import { nextEvent, startTestServer, type TestServer, uniqueName } from '../../test/harness';

const SECRET_FIELDS = [
  'password',
  'spotifyAccessToken',
  'spotifyRefreshToken',
  'atpAccessToken',
  'atpRefreshToken',
  'tokenHash',
  'token_hash',
];

/** A valid 1x1 PNG. */
const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('account: download my data, delete account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
  });
  afterAll(() => server.close());

  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  /** Two people who share a show, like each other (a mutual match) and exchange a message each. */
  async function matchedPair(): Promise<{ a: LoginResponse; b: LoginResponse; matchId: number; show: string }> {
    const a = await server.login();
    const b = await server.login();
    const show = uniqueName('show');
    const [row] = await sql<{ id: number }>(
      em(),
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      [show],
    );
    for (const p of [a, b]) {
      await sql(em(), 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 4)', [
        p.user.id,
        row?.id,
      ]);
    }
    await recomputeUser(em(), a.user.id);
    await recomputeUser(em(), b.user.id);
    let matchId = 0;
    for (const [me, them] of [
      [a, b],
      [b, a],
    ] as const) {
      const res = await server.call('POST', '/api/matches', {
        token: me.token,
        body: { user1Id: me.user.id, user2Id: them.user.id, intent: 'romantic', user1Liked: true },
      });
      expect(res.status).toBe(200);
      matchId = res.json.id;
    }
    for (const [me, text] of [
      [a, 'Hello from a'],
      [b, 'Hello from b'],
    ] as const) {
      const res = await server.call('POST', '/api/chat', {
        token: me.token,
        body: { matchId, senderId: me.user.id, content: text },
      });
      expect(res.status).toBe(201);
    }
    return { a, b, matchId, show };
  }

  it('downloads everything stored about the person as a file, without secrets or the other side', async () => {
    const { a, b, show } = await matchedPair();
    await sql(
      em(),
      `insert into video_intros (id, user_id, intent, source, status, video_key, poster_key, created_at, updated_at)
       values (gen_random_uuid(), ?, 'romantic', 'upload', 'completed', 'videos/export_intro.mp4', 'videos/export_poster.jpg', now(), now())`,
      [a.user.id],
    );
    const did = `did:plc:${uniqueName('export')}`;
    await sql(
      em(),
      `insert into user_identities (user_id, provider, subject, handle, created_at, updated_at)
       values (?, 'bluesky', ?, ?, now(), now())`,
      [a.user.id, did, 'a.example.com'],
    );
    const res = await server.call('GET', `/api/users/${a.user.id}/export`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="podmatch-data-\d+\.json"$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const data = AccountExportSchema.parse(res.json);
    expect(data.account.id).toBe(a.user.id);
    expect(data.account.username).toBe(a.user.username);
    expect(data.podcasts.map((p) => p.name)).toEqual([show]);
    expect(data.decisions).toEqual([
      expect.objectContaining({
        otherUserId: b.user.id,
        liked: true,
        intent: 'romantic',
        mutualAt: expect.any(String),
      }),
    ]);
    expect(data.messagesSent.map((m) => m.content)).toEqual(['Hello from a']);
    // The current conversation, both sides of it.
    expect(data.messagesReceived).toEqual([
      expect.objectContaining({ fromUserId: b.user.id, fromDisplayName: b.user.displayName, content: 'Hello from b' }),
    ]);
    expect(data.videoProjects).toEqual([
      expect.objectContaining({
        intent: 'romantic',
        source: 'upload',
        status: 'completed',
        videoUrl: '/media/videos/export_intro.mp4',
        posterUrl: '/media/videos/export_poster.jpg',
      }),
    ]);
    expect(data.bluesky).toEqual({ did, handle: 'a.example.com' });
    expect(data.sessions.length).toBeGreaterThan(0);
    for (const field of SECRET_FIELDS) expect(res.text).not.toContain(`"${field}"`);
    expect(res.text).not.toContain(a.token);
  });

  it('names nobody who has since blocked the person, and hands out no conversation that ended', async () => {
    const { a, b } = await matchedPair();
    await server.call('PUT', `/api/users/${b.user.id}`, { token: b.token, body: { displayName: 'Gone Quiet' } });
    expect((await server.call('POST', '/api/blocks', { token: b.token, body: { userId: a.user.id } })).status).toBe(
      200,
    );
    const res = await server.call('GET', `/api/users/${a.user.id}/export`, { token: a.token });
    const data = AccountExportSchema.parse(res.json);
    // a's own like and message stay (their data), b only by id.
    expect(data.decisions).toEqual([expect.objectContaining({ otherUserId: b.user.id, otherDisplayName: null })]);
    expect(data.messagesSent.map((m) => m.content)).toEqual(['Hello from a']);
    expect(data.messagesReceived).toEqual([]);
    expect(res.text).not.toContain('Gone Quiet');
    expect(res.text).not.toContain('Hello from b');
    // And the one who blocked sees the same of a.
    const theirs = AccountExportSchema.parse(
      (await server.call('GET', `/api/users/${b.user.id}/export`, { token: b.token })).json,
    );
    expect(theirs.decisions).toEqual([expect.objectContaining({ otherUserId: a.user.id, otherDisplayName: null })]);
    expect(theirs.messagesReceived).toEqual([]);
  });

  it("refuses another person's data and the anonymous", async () => {
    const { a, b } = await matchedPair();
    expect((await server.call('GET', `/api/users/${a.user.id}/export`, { token: b.token })).status).toBe(403);
    expect((await server.call('GET', `/api/users/${a.user.id}/export`)).status).toBe(401);
    const del = await server.call('DELETE', `/api/users/${a.user.id}`, { token: b.token, body: { confirm: 'DELETE' } });
    expect(del.status).toBe(403);
    expect((await server.call('GET', `/api/users/${a.user.id}`, { token: a.token })).status).toBe(200);
  });

  it('asks for the confirmation word', async () => {
    const { a } = await matchedPair();
    for (const body of [undefined, {}, { confirm: 'delete' }, { confirm: true }, { confirm: 'DELETE', extra: 1 }]) {
      const res = await server.call('DELETE', `/api/users/${a.user.id}`, { token: a.token, body });
      expect(res.status).toBe(400);
      expect(res.json.message).toBeTruthy();
    }
    expect((await server.call('GET', `/api/users/${a.user.id}`, { token: a.token })).status).toBe(200);
  });

  it("deletes everything: the other person's match goes live, the tabs end, the name can start fresh", async () => {
    const { a, b, matchId } = await matchedPair();
    const form = new FormData();
    form.append('profilePicture', new Blob([Buffer.from(ONE_PIXEL_PNG, 'base64')], { type: 'image/png' }), 'me.png');
    const upload = await server.call('POST', `/api/users/${a.user.id}/profile-picture`, { token: a.token, form });
    expect(upload.status).toBe(200);
    const picture: string = upload.json.profilePicture;
    expect((await server.call('GET', picture)).status).toBe(200);
    const [aSocket, bSocket] = [await server.socket(a.token), await server.socket(b.token)];
    const removed = nextEvent(bSocket, 'match:removed');
    const ended = nextEvent(aSocket, 'session:ended');
    const res = await server.call('DELETE', `/api/users/${a.user.id}`, { token: a.token, body: { confirm: 'DELETE' } });
    expect(res.status).toBe(200);
    expect((await removed)[0]).toEqual({ matchId, intent: 'romantic', reason: 'accountDeleted' });
    await ended;

    expect((await server.call('GET', `/api/users/${a.user.id}`, { token: a.token })).status).toBe(401);
    const bMatches = await server.call('GET', `/api/users/${b.user.id}/matches`, { token: b.token });
    expect(bMatches.json).toEqual([]);
    const leftovers = await sql<{ n: number }>(
      em(),
      `select (select count(*) from user_podcasts where user_id = ?)
            + (select count(*) from matches where user1_id = ? or user2_id = ?)
            + (select count(*) from messages where match_id = ?)
            + (select count(*) from sessions where user_id = ?)
            + (select count(*) from user_profiles where user_id = ?)
            + (select count(*) from feed_candidates where user_id = ? or candidate_id = ?) as n`,
      [a.user.id, a.user.id, a.user.id, matchId, a.user.id, a.user.id, a.user.id, a.user.id],
    );
    expect(Number(leftovers[0]?.n)).toBe(0);

    // The picture's files are gone too.
    expect((await server.call('GET', picture)).status).toBe(404);

    const again = await server.login(a.user.username);
    expect(again.user.id).not.toBe(a.user.id);
    const library = await server.call('GET', `/api/users/${again.user.id}/podcasts`, { token: again.token });
    expect(library.json).toEqual([]);
  });

  it('deletes many accounts while their matches like, message and block them: 404s, never a 5xx', async () => {
    const pairs = await Promise.all(Array.from({ length: 12 }, () => matchedPair()));
    const extra = await Promise.all(pairs.map(() => server.login()));
    const calls = pairs.flatMap(({ a, b, matchId }, i) => [
      server.call('DELETE', `/api/users/${a.user.id}`, { token: a.token, body: { confirm: 'DELETE' } }),
      ...Array.from({ length: 3 }, () =>
        server.call('POST', '/api/chat', {
          token: b.token,
          body: { matchId, senderId: b.user.id, content: 'still there?' },
        }),
      ),
      server.call('POST', '/api/matches', {
        token: extra[i]?.token,
        body: { user1Id: extra[i]?.user.id, user2Id: a.user.id, intent: 'romantic', user1Liked: true },
      }),
      server.call('POST', '/api/blocks', { token: b.token, body: { userId: a.user.id } }),
      server.call('GET', `/api/users/${a.user.id}/profile-details`, { token: b.token }),
    ]);
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    for (const { a } of pairs) {
      const [row] = await sql(em(), 'select id from users where id = ?', [a.user.id]);
      expect(row).toBeUndefined();
    }
    const orphans = await sql<{ n: number }>(
      em(),
      `select count(*)::int as n from matches m where not exists (select 1 from users u where u.id = m.user1_id)
          or not exists (select 1 from users u where u.id = m.user2_id)`,
    );
    expect(orphans[0]?.n).toBe(0);
  });
});
