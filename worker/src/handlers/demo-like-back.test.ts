// A demo person's like-back end to end: a like over HTTP, the delayed job in a real worker, and the
// mutual match arriving live on both people's sockets (docs/matches.md, "Demo people").
import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger } from '@server/core/logger';
import { willLikeBack } from '@server/core/matches/demo-replies';
import { shareAShow } from '@server/test/feed-fixture';
import { nextEvent, startTestServer, type TestServer, testEnv } from '@server/test/harness';
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
    const liker = await server.login();
    const socket = await server.socket(liker.token);
    for (let attempt = 0; attempt < 150; attempt++) {
      const demo = await server.login();
      await em.getConnection().execute('update users set is_demo = true where id = ?', [demo.user.id]);
      await shareAShow([[liker.user, demo.user]]);
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
      return;
    }
    throw new Error('no demo person who likes back in 150 tries');
  });
});
