import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeUser } from '../../core/matching/precompute';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';

type Person = { token: string; id: number };

describe('feed', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  const exec = (sql: string, params: unknown[] = []) => em.getConnection().execute(sql, params, 'all');

  async function person(): Promise<Person> {
    const login = await server.login();
    return { token: login.token, id: login.user.id };
  }

  /** Fresh shows for one test, so other tests' people never share them. */
  async function podcasts(n: number, category = 'Comedy'): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const [row] = await exec(
        `insert into podcasts (name, creator, category, categories, created_at) values (?, 'Host', ?, ?::text[], now()) returning id`,
        [uniqueName('show'), category, `{${category}}`],
      );
      ids.push(row?.id as number);
    }
    return ids;
  }

  async function listen(user: Person, ids: number[], options: { hidden?: boolean; plays?: number } = {}) {
    for (const id of ids) {
      await exec(
        `insert into user_podcasts (user_id, podcast_id, hidden, times_listened, episode_count) values (?, ?, ?, ?, 5)`,
        [user.id, id, options.hidden ?? false, options.plays ?? 3],
      );
    }
  }

  async function recompute(...people: Person[]) {
    for (const p of people) await recomputeUser(em.fork() as EntityManager, p.id);
  }

  async function act(viewer: Person, other: Person, intent: Intent, liked: boolean) {
    const viewerIsFirst = viewer.id < other.id;
    const [u1, u2] = viewerIsFirst ? [viewer.id, other.id] : [other.id, viewer.id];
    const side = viewerIsFirst ? 'user1' : 'user2';
    await exec(
      `insert into matches (user1_id, user2_id, intent, ${side}_liked, ${side}_acted, created_at) values (?, ?, ?, ?, true, now())`,
      [u1, u2, intent, liked],
    );
  }

  const feed = (viewer: Person, intent?: Intent) =>
    server.call('GET', `/api/users/${viewer.id}/feed${intent ? `?intent=${intent}` : ''}`, { token: viewer.token });
  const ids = (res: { json: { id: number }[] }) => res.json.map((item) => item.id);

  /** A viewer and three people sharing 3, 2 and 1 of the viewer's shows. */
  async function scene() {
    const shows = await podcasts(6);
    const [me, three, two, one] = [await person(), await person(), await person(), await person()];
    await listen(me, shows.slice(0, 3));
    await listen(three, shows.slice(0, 3));
    await listen(two, [...shows.slice(0, 2), shows[3] as number]);
    await listen(one, [shows[0] as number, shows[4] as number, shows[5] as number]);
    await recompute(me, three, two, one);
    return { me, three, two, one, shows };
  }

  it('lists people best first with public fields, match % and shared shows, never the viewer', async () => {
    const { me, three, two, one, shows } = await scene();
    const res = await feed(me, 'romantic');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([three.id, two.id, one.id]);
    const [first] = res.json;
    expect(first.matchPercentage).toBe(100);
    expect(res.json[1].matchPercentage).toBeLessThan(100);
    expect(res.json[2].matchPercentage).toBeLessThan(res.json[1].matchPercentage);
    expect(first.profile).toMatchObject({ displayName: expect.any(String) });
    expect(first.sharedPodcasts.map((p: { id: number }) => p.id).sort()).toEqual(shows.slice(0, 3).sort());
    expect(first.sharedPodcasts[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      creator: 'Host',
      imageUrl: null,
    });
    for (const field of ['username', 'spotifyId', 'matchPreferences', 'createdAt', 'password']) {
      expect(first).not.toHaveProperty(field);
    }
    expect(ids(res)).not.toContain(me.id);
  });

  it('is symmetric: both sides see the same match %', async () => {
    const { me, two } = await scene();
    const mine = (await feed(me)).json.find((i: { id: number }) => i.id === two.id);
    const theirs = (await feed(two)).json.find((i: { id: number }) => i.id === me.id);
    expect(mine.matchPercentage).toBe(theirs.matchPercentage);
  });

  it('leaves out people the viewer liked or passed in that intent, only in that intent', async () => {
    const { me, three, two, one } = await scene();
    await act(me, three, 'romantic', true);
    await act(me, two, 'romantic', false);
    // The other side acting does not hide them from the viewer.
    await act(one, me, 'romantic', true);
    expect(ids(await feed(me, 'romantic'))).toEqual([one.id]);
    expect(ids(await feed(me, 'platonic'))).toEqual([three.id, two.id, one.id]);
  });

  it('leaves out people blocked either way', async () => {
    const { me, three, two, one } = await scene();
    await exec('insert into blocks (blocker_id, blocked_id, created_at) values (?, ?, now())', [me.id, three.id]);
    await exec('insert into blocks (blocker_id, blocked_id, created_at) values (?, ?, now())', [two.id, me.id]);
    expect(ids(await feed(me))).toEqual([one.id]);
  });

  it("leaves out people under the viewer's minimum match %", async () => {
    const { me, three, two } = await scene();
    const all = (await feed(me)).json;
    const cut = all[1].matchPercentage;
    const put = await server.call('PUT', `/api/users/${me.id}`, {
      token: me.token,
      body: { matchPreferences: { minMatchPercentage: cut } },
    });
    expect(put.status).toBe(200);
    expect(ids(await feed(me))).toEqual([three.id, two.id]);
  });

  it('leaves out people whose profile for the intent is not active', async () => {
    const { me, three, two, one } = await scene();
    await exec(`update user_profiles set active = false where user_id = ? and intent = 'professional'`, [two.id]);
    expect(ids(await feed(me, 'professional'))).toEqual([three.id, one.id]);
    expect(ids(await feed(me, 'romantic'))).toEqual([three.id, two.id, one.id]);
  });

  it('neither counts nor shows hidden podcasts', async () => {
    const shows = await podcasts(3);
    const [me, hider, partly] = [await person(), await person(), await person()];
    await listen(me, shows);
    await listen(hider, shows.slice(0, 2), { hidden: true });
    await listen(partly, [shows[2] as number]);
    await listen(partly, [shows[0] as number], { hidden: true });
    await recompute(me, hider, partly);
    const res = await feed(me);
    expect(ids(res)).toEqual([partly.id]);
    expect(res.json[0].sharedPodcasts.map((p: { id: number }) => p.id)).toEqual([shows[2]]);
    // Hiding after the precompute: the stored explanation is re-checked on read.
    await exec('update user_podcasts set hidden = true where user_id = ? and podcast_id = ?', [partly.id, shows[2]]);
    expect((await feed(me)).json[0]?.sharedPodcasts ?? []).toEqual([]);
  });

  it('computes a new user on first visit, and they then appear in the others’ feeds', async () => {
    const shows = await podcasts(2);
    const [me, newcomer] = [await person(), await person()];
    await listen(me, shows);
    await recompute(me);
    expect(ids(await feed(me))).toEqual([]);
    await listen(newcomer, shows);
    // No run yet for the newcomer: the feed computes it on demand.
    expect(ids(await feed(newcomer))).toEqual([me.id]);
    expect(ids(await feed(me))).toEqual([newcomer.id]);
  });

  it('defaults to the user’s current intent', async () => {
    const { me, three, two, one } = await scene();
    await act(me, three, 'platonic', true);
    await server.call('PUT', `/api/users/${me.id}`, { token: me.token, body: { intent: 'platonic' } });
    expect(ids(await feed(me))).toEqual([two.id, one.id]);
  });

  it('counts pending profiles per intent', async () => {
    const { me, three, two } = await scene();
    await act(me, three, 'romantic', false);
    await exec(`update user_profiles set active = false where user_id = ? and intent = 'professional'`, [two.id]);
    const res = await server.call('GET', `/api/users/${me.id}/feed-counts`, { token: me.token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ romantic: 2, platonic: 3, professional: 2 });
  });

  it('refuses another user’s feed and counts with 403', async () => {
    const { me } = await scene();
    const other = await person();
    expect((await feed({ id: me.id, token: other.token })).status).toBe(403);
    const counts = await server.call('GET', `/api/users/${me.id}/feed-counts`, { token: other.token });
    expect(counts.status).toBe(403);
  });

  it.each(['ROMANTIC', 'dating', '1', ''])('answers intent=%s with 400', async (intent) => {
    const me = await person();
    const res = await server.call('GET', `/api/users/${me.id}/feed?intent=${intent}`, { token: me.token });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/intent/);
  });

  it('computes the first feeds of many newcomers with overlapping tastes at the same moment', async () => {
    // Each first read recomputes that person and writes rows into everyone else's lists (mirror
    // rows), so simultaneous recomputes write into each other's lists: 40 of them, 4x the pool.
    const shows = await podcasts(4);
    const people = await Promise.all(Array.from({ length: 40 }, () => person()));
    for (const [i, p] of people.entries()) await listen(p, shows.slice(0, 2 + (i % 3)));
    const reads = await Promise.all(people.map((p) => feed(p)));
    expect(reads.map((r) => r.status)).toEqual(people.map(() => 200));
    // No duplicates, and nobody left with an empty list (which pairs are stored depends on which rare
    // shows each recompute looked at; the periodic full recompute evens that out).
    const ids = `{${people.map((p) => p.id)}}`;
    const [rows] = await exec(
      `select count(*)::int as n, count(distinct (user_id, candidate_id))::int as pairs,
              count(distinct user_id)::int as listers
         from feed_candidates where user_id = any(?::int[]) and candidate_id = any(?::int[])`,
      [ids, ids],
    );
    expect(rows?.n).toBe(rows?.pairs);
    expect(rows?.listers).toBe(40);
    const again = await Promise.all(people.map((p) => feed(p)));
    for (const res of again) expect(res.json.length).toBeGreaterThan(0);
  });
});
