import type { EntityManager } from '@mikro-orm/postgresql';
import { commonPodcastsShown, ProfileDetailsSchema } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { recomputeUser } from '../../core/matching/precompute';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('profile details', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  async function show(category: string) {
    const [row] = await sql<{ id: number; name: string }>(
      em(),
      `insert into podcasts (name, category, categories, created_at) values (?, ?, array[?]::text[], now()) returning id, name`,
      [uniqueName('show'), category, category],
    );
    return row as { id: number; name: string };
  }

  async function listen(
    userId: number,
    podcastId: number,
    opts: { times?: number; daysAgo?: number; hidden?: boolean; episode?: string } = {},
  ) {
    await sql(
      em(),
      `insert into user_podcasts (user_id, podcast_id, hidden, times_listened, last_listened, last_episode)
       values (?, ?, ?, ?, ?, ?)`,
      [
        userId,
        podcastId,
        opts.hidden ?? false,
        opts.times ?? 1,
        opts.daysAgo === undefined ? null : new Date(Date.now() - opts.daysAgo * DAY_MS),
        opts.episode ?? null,
      ],
    );
  }

  /**
   * b lists 8 shows (6 categories; one hidden, listened most and most recently), 4 of them shared
   * visibly with a, plus one shared only because a hides it.
   */
  async function people() {
    const a = await server.login();
    const b = await server.login();
    const shows = [
      await show('Comedy'),
      await show('Comedy'),
      await show('Comedy'),
      await show('Science'),
      await show('Science'),
      await show('History'),
      await show('News'),
      await show('Arts'),
    ];
    const secret = await show('True Crime');
    const aHides = shows[5] as { id: number };
    await sql(
      em(),
      `insert into podcast_episodes (podcast_id, guid, title, description, episode_number, published_at)
       values (?, 'g1', 'The one about owls', 'Owls, explained.', 42, now())`,
      [shows[0]?.id],
    );
    for (const [i, s] of shows.entries()) {
      await listen(b.user.id, s.id, {
        times: 10 + i,
        daysAgo: i + 1,
        episode: i === 0 ? 'The one about owls' : undefined,
      });
    }
    await listen(b.user.id, secret.id, { times: 999, daysAgo: 0, hidden: true });
    for (const s of [...shows.slice(0, 4), secret]) await listen(a.user.id, s.id, { times: 2 });
    await listen(a.user.id, aHides.id, { hidden: true });
    await recomputeUser(em(), a.user.id);
    await recomputeUser(em(), b.user.id);
    return { a, b, shows, secret };
  }

  it("shows someone in the viewer's feed: top categories, most listened, recent listens, what both share", async () => {
    const { a, b, shows, secret } = await people();
    const res = await server.call('GET', `/api/users/${b.user.id}/profile-details`, { token: a.token });
    expect(res.status).toBe(200);
    const details = ProfileDetailsSchema.parse(res.json);
    expect(details.user.id).toBe(b.user.id);
    expect(details.user).not.toHaveProperty('username');
    expect(details.match).toBeNull();
    expect(details.matchPercentage).toBeGreaterThan(0);

    // Hidden shows count nowhere: True Crime is neither a category nor a podcast nor a listen.
    expect(details.topCategories).toEqual([
      { name: 'Comedy', count: 3 },
      { name: 'Science', count: 2 },
      { name: 'Arts', count: 1 },
      { name: 'History', count: 1 },
      { name: 'News', count: 1 },
    ]);
    expect(details.topPodcasts.map((p) => p.id)).toEqual([7, 6, 5, 4, 3].map((i) => shows[i]?.id));
    expect(details.topPodcasts[0]?.timesListened).toBe(17);
    expect(details.recentListens.map((l) => l.podcast.id)).toEqual([0, 1, 2, 3, 4].map((i) => shows[i]?.id));
    expect(details.recentListens[0]).toMatchObject({
      episodeTitle: 'The one about owls',
      episodeNumber: 42,
      description: 'Owls, explained.',
    });
    expect(details.recentListens[1]).toMatchObject({ episodeTitle: null, episodeNumber: null });
    const everywhere = JSON.stringify(details);
    expect(everywhere).not.toContain(secret.name);

    // Common: the 4 both list visibly (not the one a hides, not b's hidden one), within the SPEC's count.
    expect(details.common.count).toBe(4);
    expect(details.common.podcasts.length).toBe(commonPodcastsShown(4, details.matchPercentage));
    for (const p of details.common.podcasts) expect(shows.slice(0, 4).map((s) => s.id)).toContain(p.id);
  });

  it('names the mutual match once there is one, with its match %', async () => {
    const { a, b } = await people();
    for (const [me, them] of [
      [a, b],
      [b, a],
    ] as const) {
      const like = await server.call('POST', '/api/matches', {
        token: me.token,
        body: { user1Id: me.user.id, user2Id: them.user.id, intent: 'romantic', user1Liked: true },
      });
      expect(like.status).toBe(200);
    }
    const res = await server.call('GET', `/api/users/${b.user.id}/profile-details`, { token: a.token });
    const details = ProfileDetailsSchema.parse(res.json);
    expect(details.match).not.toBeNull();
    const match = await server.call('GET', `/api/matches/${details.match?.id}`, { token: a.token });
    expect(match.status).toBe(200);
    expect(details.matchPercentage).toBe(match.json.matchPercentage);
  });

  it('refuses strangers, blocked people and the anonymous, and never says which', async () => {
    const { a, b } = await people();
    const stranger = await server.login();
    const path = `/api/users/${b.user.id}/profile-details`;
    expect((await server.call('GET', path)).status).toBe(401);
    const refused = await server.call('GET', path, { token: stranger.token });
    expect(refused.status).toBe(404);
    expect(refused.json.message).toBeTruthy();
    // Not active in that intent: not in the viewer's feed of it, so not visible through it.
    await sql(em(), "update user_profiles set active = false where user_id = ? and intent = 'professional'", [
      b.user.id,
    ]);
    expect((await server.call('GET', `${path}?intent=professional`, { token: a.token })).status).toBe(404);
    const missing = await server.call('GET', '/api/users/999999999/profile-details', { token: a.token });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe(refused.json.message);

    await server.call('POST', '/api/blocks', { token: b.token, body: { userId: a.user.id } });
    expect((await server.call('GET', path, { token: a.token })).status).toBe(404);
  });

  it('answers bad ids and intents with a 400, and many viewers at once without a 5xx', async () => {
    const { a, b } = await people();
    expect((await server.call('GET', '/api/users/abc/profile-details', { token: a.token })).status).toBe(400);
    const badIntent = await server.call('GET', `/api/users/${b.user.id}/profile-details?intent=x`, {
      token: a.token,
    });
    expect(badIntent.status).toBe(400);
    const own = await server.call('GET', `/api/users/${a.user.id}/profile-details`, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.json.common).toEqual({ podcasts: [], count: 0 });

    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        server.call('GET', `/api/users/${i % 2 ? b.user.id : a.user.id}/profile-details`, {
          token: i % 2 ? a.token : b.token,
        }),
      ),
    );
    expect(statuses.map((r) => r.status)).toEqual(Array(40).fill(200));
  });
});
