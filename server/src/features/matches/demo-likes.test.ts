// Demo people: SPEC's one demo user matches at once; every other demo person answers later, by a
// delayed job that likes back with a probability growing with the match % (docs/matches.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { jobs, SPEC_DEMO_USERNAME } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerLike,
  likeBackDraw,
  likeBackProbability,
  parseDelayRange,
  replyDelayMs,
  willLikeBack,
} from '../../core/matches/demo-replies';
import { shareAShow } from '../../test/feed-fixture';
import { collectEvents, drainEvents, nextEvent, startTestServer, type TestServer, testEnv } from '../../test/harness';

type Person = { token: string; id: number };

describe('demo like-back rules', () => {
  it('likes back more often the higher the match %', () => {
    expect(likeBackProbability(0)).toBeCloseTo(0.1);
    expect(likeBackProbability(50)).toBeCloseTo(0.5);
    expect(likeBackProbability(100)).toBeCloseTo(0.9);
    expect(likeBackProbability(150)).toBeCloseTo(0.9);
    expect(likeBackProbability(-5)).toBeCloseTo(0.1);
    expect(likeBackProbability(Number.NaN)).toBeCloseTo(0.1);
    for (let pct = 0; pct < 100; pct += 5)
      expect(likeBackProbability(pct + 5)).toBeGreaterThan(likeBackProbability(pct));
  });

  it('draws once per pair and intent: the same answer every time, different across pairs', () => {
    expect(likeBackDraw(7, 9, 'romantic')).toBe(likeBackDraw(7, 9, 'romantic'));
    expect(likeBackDraw(7, 9, 'romantic')).not.toBe(likeBackDraw(7, 9, 'platonic'));
    expect(likeBackDraw(7, 9, 'romantic')).not.toBe(likeBackDraw(9, 7, 'romantic'));
    // Over many pairs the share that likes back follows the probability.
    for (const pct of [10, 50, 90]) {
      let yes = 0;
      for (let liker = 1; liker <= 4000; liker++) if (willLikeBack(1, liker, 'romantic', pct)) yes++;
      expect(yes / 4000).toBeCloseTo(likeBackProbability(pct), 1);
    }
  });

  it('reads the delay setting', () => {
    expect(parseDelayRange('20-180')).toEqual({ minMs: 20_000, maxMs: 180_000 });
    expect(parseDelayRange('1.5')).toEqual({ minMs: 1500, maxMs: 1500 });
    expect(parseDelayRange('9-3')).toBeNull();
    expect(parseDelayRange('soon')).toBeNull();
    const range = { minMs: 1000, maxMs: 3000 };
    expect(replyDelayMs(range, () => 0)).toBe(1000);
    expect(replyDelayMs(range, () => 0.5)).toBe(2000);
  });
});

describe('demo people', () => {
  let server: TestServer;
  let em: EntityManager;
  let redis: Redis;
  let queue: Queue;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new Queue(jobs.demoLikeBack.queue, { connection: redis });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await server.close();
  });

  const exec = (text: string, params: unknown[] = []) => em.getConnection().execute(text, params, 'all');
  async function person(): Promise<Person> {
    const login = await server.login();
    return { token: login.token, id: login.user.id };
  }
  async function demoPerson(): Promise<Person> {
    const p = await person();
    await exec('update users set is_demo = true where id = ?', [p.id]);
    return p;
  }
  const like = (from: Person, to: number, liked = true) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      body: { user1Id: from.id, user2Id: to, intent: 'romantic', user1Liked: liked },
    });
  const matchIds = async (p: Person) =>
    (
      (await server.call('GET', `/api/users/${p.id}/matches?intent=romantic`, { token: p.token })).json as {
        id: number;
      }[]
    ).map((m) => m.id);
  const pendingJob = async (demoId: number, likerId: number) =>
    (await queue.getJobs(['delayed', 'waiting'])).find(
      (job) => job?.name === jobs.demoLikeBack.name && job.data.demoId === demoId && job.data.likerId === likerId,
    );
  const answer = (demo: Person, liker: Person) =>
    answerLike(em.fork() as EntityManager, server.running.deps.publisher, server.running.deps.artwork, {
      demoId: demo.id,
      likerId: liker.id,
      intent: 'romantic',
    });

  /** A liker and a demo person (not SPEC's) whose draw says yes (or no) at the pair's match %. */
  async function likedDemo(likesBack: boolean): Promise<[Person, Person, number]> {
    const liker = await person();
    for (;;) {
      const demo = await demoPerson();
      await shareAShow([[liker, demo]]);
      const res = await like(liker, demo.id);
      expect(res.status).toBe(200);
      if (willLikeBack(demo.id, liker.id, 'romantic', res.json.matchPercentage) === likesBack) {
        return [liker, demo, res.json.id];
      }
    }
  }

  it('a like on a demo person is not mutual at once; a delayed job answers it', async () => {
    const [liker, demo, matchId] = await likedDemo(true);
    const [row] = await exec('select user1_liked, user2_liked, mutual_at from matches where id = ?', [matchId]);
    expect(row?.mutual_at).toBeNull();
    expect(await matchIds(liker)).toEqual([]);
    expect((await like(liker, demo.id)).json).toMatchObject({ isMutualMatch: false, instantDemoMatch: false });
    const job = await pendingJob(demo.id, liker.id);
    expect(job, 'a demo.likeBack job is queued').toBeTruthy();
    // The test environment's delay (DEMO_REPLY_DELAY_SECONDS=1-2).
    expect(job?.opts.delay).toBeGreaterThanOrEqual(1000);
    expect(job?.opts.delay).toBeLessThanOrEqual(2000);
  });

  it('the answer makes it mutual: both people hear match:new with their own view, and unread badges', async () => {
    const [liker, demo, matchId] = await likedDemo(true);
    const [sl, sd] = [await server.socket(liker.token), await server.socket(demo.token)];
    const heard = [nextEvent(sl, 'match:new'), nextEvent(sd, 'match:new')] as const;
    const badge = nextEvent(sl, 'badges:unread', (b) => b.unreadMatches.romantic === 1);
    expect(await answer(demo, liker)).toEqual({ likedBack: true, mutual: true });
    const [[forLiker], [forDemo]] = await Promise.all(heard);
    expect(forLiker).toMatchObject({ id: matchId, user1Id: liker.id, user2Id: demo.id, isMutualMatch: true });
    expect(forDemo).toMatchObject({ id: matchId, user1Id: demo.id, user2Id: liker.id, isMutualMatch: true });
    await badge;
    expect(await matchIds(liker)).toEqual([matchId]);
    // Answering again (a retried job) changes nothing and announces nothing.
    const again = collectEvents(sl, 'match:new');
    expect(await answer(demo, liker)).toEqual({ likedBack: true, mutual: false });
    await drainEvents(server, sl, liker);
    expect(again).toEqual([]);
  });

  it('a demo person whose draw says no never likes back', async () => {
    const [liker, demo, matchId] = await likedDemo(false);
    expect(await answer(demo, liker)).toEqual({ likedBack: false, mutual: false });
    const [row] = await exec('select mutual_at, user1_liked, user2_liked from matches where id = ?', [matchId]);
    expect(row?.mutual_at).toBeNull();
    // Liking again does not draw again.
    await like(liker, demo.id, false);
    await like(liker, demo.id, true);
    expect(await answer(demo, liker)).toEqual({ likedBack: false, mutual: false });
  });

  it('a block or an unmatch meanwhile: no match, nothing announced', async () => {
    const [liker, demo] = await likedDemo(true);
    const socket = await server.socket(liker.token);
    const heard = collectEvents(socket, 'match:new');
    const blocked = await server.call('POST', '/api/blocks', { token: liker.token, body: { userId: demo.id } });
    expect(blocked.status).toBe(200);
    expect(await answer(demo, liker)).toEqual({ likedBack: false, mutual: false });

    const [liker2, demo2, matchId2] = await likedDemo(true);
    await exec('update matches set unmatched_at = now(), user1_acted = true, user2_acted = true where id = ?', [
      matchId2,
    ]);
    expect(await answer(demo2, liker2)).toEqual({ likedBack: false, mutual: false });
    // Liked and then passed: the like is no longer there to answer.
    const [liker3, demo3, matchId3] = await likedDemo(true);
    await like(liker3, demo3.id, false);
    expect(await answer(demo3, liker3)).toEqual({ likedBack: false, mutual: false });
    const rows = await exec('select id, mutual_at from matches where id in (?, ?)', [matchId2, matchId3]);
    expect(rows.every((r) => r.mutual_at === null)).toBe(true);
    await drainEvents(server, socket, liker);
    expect(heard).toEqual([]);
  });

  it("SPEC's demo user still matches at once, with no job", async () => {
    const [existing] = await exec('select id from users where lower(username) = ?', [SPEC_DEMO_USERNAME]);
    let demoId = existing?.id as number | undefined;
    if (demoId === undefined) {
      demoId = (await demoPerson()).id;
      await exec('update users set username = ? where id = ?', [SPEC_DEMO_USERNAME, demoId]);
    }
    await exec('update users set is_demo = true where id = ?', [demoId]);
    await exec('update user_profiles set active = true where user_id = ? and intent = ?', [demoId, 'romantic']);
    const liker = await person();
    await shareAShow([[liker, { id: demoId }]]);
    const socket = await server.socket(liker.token);
    const heard = nextEvent(socket, 'match:new');
    const res = await like(liker, demoId);
    expect(res.json).toMatchObject({ isMutualMatch: true, user1Liked: true, user2Liked: true, instantDemoMatch: true });
    expect((await heard)[0].id).toBe(res.json.id);
    expect(await pendingJob(demoId, liker.id)).toBeUndefined();
    expect(await matchIds(liker)).toEqual([res.json.id]);
    // A pass is only a pass.
    const pass = await server.call('POST', '/api/matches', {
      token: liker.token,
      body: { user1Id: liker.id, user2Id: demoId, intent: 'platonic', user1Liked: false },
    });
    expect(pass.json.isMutualMatch).toBe(false);
  });
});
