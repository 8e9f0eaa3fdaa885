// A demo person's chat answers end to end: a message over HTTP, the delayed job in a real worker,
// the typing indicator and then the answer arriving live (docs/matches.md, "Demo people").
import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger } from '@server/core/logger';
import { decide } from '@server/core/matches/decide';
import { answerChat, DEMO_CHAT_ANSWERS } from '@server/core/matches/demo-chat';
import { nextEvent, startTestServer, type TestServer, testEnv, uniqueName } from '@server/test/harness';
import { jobs } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

describe('demo.chatReply', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let em: EntityManager;
  let redis: Redis;
  let queue: Queue;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
    worker = await startWorker(loadWorkerConfig(testEnv({ WORKER_QUEUES: 'media' })), createLogger('worker', 'silent'));
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new Queue(jobs.demoChatReply.queue, { connection: redis });
  });
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await worker.close();
    await server.close();
  });

  const exec = (sql: string, params: unknown[]) => em.getConnection().execute(sql, params, 'all');

  /** Two people who list `show` and are a mutual match in romance; answers the match id. */
  async function matched(showName: string, { demo }: { demo: boolean }) {
    const [show] = await exec(
      'insert into podcasts (name, verified_at, created_at) values (?, now(), now()) returning id',
      [showName],
    );
    const person = await server.login(uniqueName('Robin'));
    const other = await server.login();
    if (demo) await exec('update users set is_demo = true where id = ?', [other.user.id]);
    for (const id of [person.user.id, other.user.id]) {
      await exec('insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [id, show?.id]);
    }
    await exec(
      `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids)
       values (?, ?, 80, 0.5, array[?::int]), (?, ?, 80, 0.5, array[?::int])`,
      [person.user.id, other.user.id, show?.id, other.user.id, person.user.id, show?.id],
    );
    await decide(em.fork() as EntityManager, person.user.id, other.user.id, 'romantic', true);
    const mutual = await decide(em.fork() as EntityManager, other.user.id, person.user.id, 'romantic', true);
    if (!mutual.ok || !mutual.becameMutual) throw new Error('no mutual match');
    return { person, other, matchId: mutual.row.id };
  }

  const send = (token: string, senderId: number, matchId: number, content: string) =>
    server.call('POST', '/api/chat', { token, body: { matchId, senderId, content } });

  it('answers after typing first, names the shared show, and says goodbye after a few answers', async () => {
    const showName = uniqueName('Castles and Coffee');
    const { person, other: demo, matchId } = await matched(showName, { demo: true });
    const socket = await server.socket(person.token);
    const answers: string[] = [];
    for (let i = 0; i < DEMO_CHAT_ANSWERS; i++) {
      const order: string[] = [];
      const typing = nextEvent(socket, 'typing', (e) => e.userId === demo.user.id && e.typing).then((e) => {
        order.push('typing');
        return e;
      });
      const answer = nextEvent(socket, 'message:new', (m) => m.senderId === demo.user.id, 20_000).then(([m]) => {
        order.push('message');
        return m;
      });
      const sentAt = Date.now();
      expect((await send(person.token, person.user.id, matchId, `Hello, message ${i + 1}`)).status).toBe(201);
      const [message] = await Promise.all([answer, typing]);
      // A human-like pause: the thinking delay, then the typing indicator for a while.
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(2000);
      expect(order).toEqual(['typing', 'message']);
      expect(message).toMatchObject({ matchId, senderId: demo.user.id });
      answers.push(message.content);
    }
    expect(answers[0]).toContain(showName);
    expect(answers[0]).toContain(person.user.displayName);
    expect(answers.at(-1)).toMatch(/goodbye/i);
    expect(new Set(answers).size).toBe(DEMO_CHAT_ANSWERS);

    // After the goodbye, a further message gets no answer.
    expect((await send(person.token, person.user.id, matchId, 'Are you still there?')).status).toBe(201);
    expect(
      await answerChat(em.fork() as EntityManager, server.running.deps.publisher, { matchId, demoId: demo.user.id }),
    ).toEqual({
      replied: false,
    });
    const [count] = await exec('select count(*)::int as n from messages where match_id = ? and sender_id = ?', [
      matchId,
      demo.user.id,
    ]);
    expect(count?.n).toBe(DEMO_CHAT_ANSWERS);
    socket.disconnect();
  });

  it('many people writing to demo people at once (three times the pool): no 5xx, one answer per match', async () => {
    const PAIRS = 30;
    const pairs: Awaited<ReturnType<typeof matched>>[] = [];
    for (let i = 0; i < PAIRS; i++) pairs.push(await matched(uniqueName('Load show'), { demo: true }));
    const answers = await Promise.all(
      pairs.flatMap(({ person, matchId }) => [1, 2].map((n) => send(person.token, person.user.id, matchId, `Hi ${n}`))),
    );
    expect(answers.filter((res) => res.status >= 500)).toEqual([]);
    expect(answers.every((res) => res.status === 201)).toBe(true);
    const ids = pairs.map((p) => p.matchId);
    // Two messages in a row get one answer (deduplicated per match); every match gets it.
    const answered = async () =>
      exec(
        `select m.id, count(msg.id)::int as n from matches m
           left join messages msg on msg.match_id = m.id and msg.sender_id <> all(?::int[])
          where m.id = any(?::int[]) group by m.id`,
        [`{${pairs.map((p) => p.person.user.id).join(',')}}`, `{${ids.join(',')}}`],
      );
    const deadline = Date.now() + 40_000;
    let rows = await answered();
    while (rows.some((r) => r.n < 1) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      rows = await answered();
    }
    expect(rows.map((r) => r.n).sort()).toEqual(ids.map(() => 1));
  }, 90_000);

  it('never answers for real people: no job is staged, and the answer refuses a match without a demo person', async () => {
    const { person, other, matchId } = await matched(uniqueName('Real show'), { demo: false });
    expect((await send(person.token, person.user.id, matchId, 'Hi, real person')).status).toBe(201);
    const staged = await exec(`select id from job_outbox where job_key = 'demoChatReply' and payload->>'matchId' = ?`, [
      String(matchId),
    ]);
    const queued = (await queue.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter(
      (job) => job?.name === jobs.demoChatReply.name && job.data.matchId === matchId,
    );
    expect(staged).toEqual([]);
    expect(queued).toEqual([]);
    expect(
      await answerChat(em.fork() as EntityManager, server.running.deps.publisher, { matchId, demoId: other.user.id }),
    ).toEqual({
      replied: false,
    });
    const [count] = await exec('select count(*)::int as n from messages where match_id = ?', [matchId]);
    expect(count?.n).toBe(1);
  });
});
