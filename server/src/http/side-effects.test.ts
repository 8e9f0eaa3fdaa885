// Side effects after commit, from one place (docs/architecture.md, "Realtime"): what a unit of work
// collects reaches nobody when its transaction rolls back or its request fails, and an event that
// does not match its schema is refused before anything is sent. Real PostgreSQL, Redis, sockets.
import type { EntityManager } from '@mikro-orm/postgresql';
import { defineEndpoint } from '@shared/api';
import { jobs, OkResponseSchema } from '@shared/index';
import { Queue } from 'bullmq';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../core/db/sql';
import { stageJob } from '../core/jobs/outbox';
import { createLogger } from '../core/logger';
import { Effects } from '../core/realtime/effects';
import { InvalidEventError, RECIPIENTS } from '../core/realtime/publisher';
import { collectEvents, drainEvents, startTestServer, type TestServer, testEnv, until } from '../test/harness';
import { errorHandler } from './error-handler';
import { requestContext } from './request-context';
import { mount } from './route';

describe('effects: published only after a commit, and only valid events', () => {
  let server: TestServer;
  let redis: Redis;
  let avatars: Queue;
  beforeAll(async () => {
    server = await startTestServer();
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    avatars = new Queue(jobs.avatarGenerate.queue, { connection: redis });
  });
  afterAll(async () => {
    await avatars.close();
    redis.disconnect();
    await server.close();
  });

  const em = () => server.running.deps.orm.em.fork() as EntityManager;
  const staged = async (userId: number) =>
    sql<{ id: number }>(em(), `select id from job_outbox where payload->>'userId' = ?`, [String(userId)]);
  const queued = async (userId: number) =>
    (await avatars.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter((j) => j?.data.userId === userId);

  async function signedIn() {
    const login = await server.login();
    const person = { id: login.user.id, token: login.token };
    const socket = await server.socket(login.token);
    return { login, person, socket };
  }

  // A user id no account has: the sign-in of `signedIn` queues a real portrait job of its own.
  const jobUser = () => 1_500_000_000 + Math.floor(Math.random() * 100_000_000);

  it('a rolled-back transaction publishes no event and queues no job; a committed one does', async () => {
    const { login, person, socket } = await signedIn();
    const target = jobUser();
    const heard = collectEvents(socket, 'user:updated');
    const effects = new Effects(server.running.deps);
    await expect(
      effects.transactional(em(), async (tx) => {
        await stageJob(tx, 'avatarGenerate', { userId: target });
        effects.relayOutbox();
        effects.emit('user:updated', { ...login.user, displayName: 'Rolled back' }, { userId: person.id });
        effects.pushBadges([person.id]);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    await effects.publish();
    await drainEvents(server, socket, person);
    // Only the sentinel of drainEvents arrived; no outbox row, no job.
    expect(heard.map(([user]) => (user as { displayName: string }).displayName)).not.toContain('Rolled back');
    expect(await staged(target)).toEqual([]);
    expect(await queued(target)).toEqual([]);

    // The same work, committed: the event arrives and the job is queued.
    const committed = new Effects(server.running.deps);
    await committed.transactional(em(), async (tx) => {
      await stageJob(tx, 'avatarGenerate', { userId: target });
      committed.relayOutbox();
      committed.emit('user:updated', { ...login.user, displayName: 'Committed' }, { userId: person.id });
    });
    await committed.publish();
    await until(
      async () => heard.some(([user]) => (user as { displayName: string }).displayName === 'Committed'),
      'the event',
    );
    await until(async () => (await queued(target)).length === 1, 'the job queued');
  });

  it('a request that fails after collecting its effects tells nobody', async () => {
    const { login, person, socket } = await signedIn();
    const target = jobUser();
    const heard = collectEvents(socket, 'user:updated');
    // A route built with mount() like every other, whose handler fails after its commit.
    const failing = defineEndpoint({
      method: 'POST',
      path: '/api/test/fails',
      access: 'user',
      response: OkResponseSchema,
    });
    const app = express();
    app.use(express.json());
    app.use(requestContext(server.running.deps.orm, server.running.deps));
    app.use((req, _res, next) => {
      req.auth = { userId: person.id, sessionId: 0 };
      next();
    });
    const router = express.Router();
    mount(router, failing, async ({ req }) => {
      await req.effects.transactional(req.em, async (tx) => {
        await stageJob(tx, 'avatarGenerate', { userId: target });
      });
      req.effects.relayOutbox();
      req.effects.emit('user:updated', { ...login.user, displayName: 'Never told' }, { userId: person.id });
      throw new Error('failed after the commit');
    });
    app.use(router);
    app.use(errorHandler(createLogger('test', 'silent')));
    const listener = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => listener.once('listening', resolve));
    try {
      const address = listener.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${address.port}/api/test/fails`, { method: 'POST' });
      expect(res.status).toBe(500);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
    await drainEvents(server, socket, person);
    expect(heard.map(([user]) => (user as { displayName: string }).displayName)).not.toContain('Never told');
    // The staged job committed: not relayed by this request, yet not lost (the outbox's own sweep
    // relays what nobody kicked it for).
    await until(
      async () => (await staged(target)).length + (await queued(target)).length === 1,
      'the committed job staged or queued',
    );
  });

  it('an event that does not match its schema is refused before anything is sent', async () => {
    const { login, person, socket } = await signedIn();
    const heard = collectEvents(socket, 'user:updated');
    const badges = collectEvents(socket, 'badges:unread');
    const effects = new Effects(server.running.deps);
    expect(() =>
      effects.emit('user:updated', { ...login.user, displayName: 42 } as never, { userId: person.id }),
    ).toThrow(InvalidEventError);
    expect(() =>
      effects.emit('badges:unread', { unreadMatches: { romantic: -1 } } as never, { userId: person.id }),
    ).toThrow(InvalidEventError);
    // Straight through the publisher too (events sent outside a unit of work).
    expect(() =>
      server.running.deps.publisher.emit('user:updated', { id: person.id } as never, { userId: person.id }),
    ).toThrow(InvalidEventError);
    await effects.publish();
    await drainEvents(server, socket, person);
    expect(heard).toHaveLength(1); // the sentinel only
    expect(badges).toEqual([]);
  });

  it('one table says who receives every event', () => {
    expect(RECIPIENTS['message:new']({ senderId: 1, recipientId: 2 })).toEqual(['user:1', 'user:2']);
    expect(RECIPIENTS.typing({ recipientId: 2 })).toEqual(['user:2']);
    expect(RECIPIENTS['session:ended']({ sessionIds: [7] })).toEqual(['session:7']);
    expect(RECIPIENTS['realtime:resync']).toBeNull();
  });
});
