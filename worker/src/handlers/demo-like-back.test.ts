// A demo person's like-back end to end: a like over HTTP, the delayed job in a real worker, and the
// mutual match arriving live on both people's sockets (docs/matches.md, "Demo people").
import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger } from '@server/core/logger';
import { willLikeBack } from '@server/core/matches/demo-replies';
import { nextEvent, startTestServer, type TestServer, testEnv, uniqueName } from '@server/test/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

describe('demo.likeBack', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
    worker = await startWorker(loadWorkerConfig(testEnv({ WORKER_QUEUES: 'media' })), createLogger('worker', 'silent'));
  });
  afterAll(async () => {
    await worker.close();
    await server.close();
  });

  it('answers a like after the delay: a live mutual match for both people', async () => {
    const exec = (sql: string, params: unknown[]) => em.getConnection().execute(sql, params, 'all');
    // A show both list, with remote artwork: the worker's announcement carries its signed proxy URL.
    const showName = uniqueName('Shared show');
    const artworkUrl = 'https://img.example.com/shared-show.jpg';
    const [show] = await exec(
      'insert into podcasts (name, image_url, verified_at, created_at) values (?, ?, now(), now()) returning id',
      [showName, artworkUrl],
    );
    const listens = (userId: number) =>
      exec('insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [userId, show?.id]);
    // Each in the other's feed through that show, as the precompute stores it (a like needs it).
    const candidates = (a: number, b: number) =>
      exec(
        `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids)
         values (?, ?, 80, 0.5, array[?::int]), (?, ?, 80, 0.5, array[?::int])`,
        [a, b, show?.id, b, a, show?.id],
      );
    const liker = await server.login();
    await listens(liker.user.id);
    const socket = await server.socket(liker.token);
    for (let attempt = 0; attempt < 150; attempt++) {
      const demo = await server.login();
      await em.getConnection().execute('update users set is_demo = true where id = ?', [demo.user.id]);
      await listens(demo.user.id);
      await candidates(liker.user.id, demo.user.id);
      const demoSocket = await server.socket(demo.token);
      const heard = [
        nextEvent(socket, 'match:new', (m) => m.user2Id === demo.user.id),
        nextEvent(demoSocket, 'match:new'),
      ] as const;
      const startedAt = Date.now();
      const res = await server.call('POST', '/api/matches', {
        token: liker.token,
        body: { user1Id: liker.user.id, user2Id: demo.user.id, intent: 'romantic', user1Liked: true },
      });
      expect(res.json.isMutualMatch).toBe(false);
      if (!willLikeBack(demo.user.id, liker.user.id, 'romantic', res.json.matchPercentage)) {
        for (const p of heard) p.catch(() => undefined);
        demoSocket.disconnect();
        continue;
      }
      const [[forLiker], [forDemo]] = await Promise.all(heard);
      // Not before the test environment's delay (DEMO_REPLY_DELAY_SECONDS=1-2).
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
      expect(forLiker).toMatchObject({ id: res.json.id, isMutualMatch: true, user1Id: liker.user.id });
      expect(forDemo).toMatchObject({ id: res.json.id, isMutualMatch: true, user1Id: demo.user.id });
      // Signed by the worker with the key the servers share: the server's own URL for that show.
      const signed = server.running.deps.artwork.forShow(showName, artworkUrl);
      expect(signed).toMatch(/^\/api\/proxy\/image\?url=.+&sig=/);
      expect(forLiker.sharedPodcasts).toEqual([{ id: show?.id, name: showName, creator: null, imageUrl: signed }]);
      return;
    }
    throw new Error('no demo person who likes back in 150 tries');
  });
});
