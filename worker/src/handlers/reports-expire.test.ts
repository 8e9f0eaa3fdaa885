// The report retention sweep (docs/privacy.md, "Reports"): a real worker deletes reports past the
// retention period, with their kept messages, and keeps the rest; its schedule is set once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '@server/core/db/sql';
import { JobQueue } from '@server/core/jobs/job-queue';
import { createLogger } from '@server/core/logger';
import { shareAShow } from '@server/test/feed-fixture';
import { startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { jobs } from '@shared/index';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { REPORTS_EXPIRE_SCHEDULER, type RunningWorker, startWorker } from '../worker';

describe('reports.expire', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let redis: Redis;
  let queue: JobQueue;
  let em: () => EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = () => server.running.deps.orm.em.fork() as EntityManager;
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    queue = new JobQueue(redis);
    worker = await startWorker(
      loadWorkerConfig(
        testEnv({ WORKER_QUEUES: 'sync', REPORTS_EXPIRE_EVERY_MINUTES: '90', REPORT_RETENTION_DAYS: '30' }),
      ),
      createLogger('worker', 'silent'),
    );
  });
  afterAll(async () => {
    await worker.close();
    // Later test files' workers must not find this schedule.
    await queue.schedule('reportsExpire', REPORTS_EXPIRE_SCHEDULER, 0, { olderThanDays: 30 });
    await queue.close();
    redis.disconnect();
    await server.close();
  });

  it('is scheduled once with the retention setting', async () => {
    expect(await queue.scheduleOf('reportsExpire', REPORTS_EXPIRE_SCHEDULER)).toMatchObject({
      every: 90 * 60_000,
      name: jobs.reportsExpire.name,
    });
  });

  it('deletes reports older than the retention period with their messages, and keeps newer ones', async () => {
    const [reporter, oldTarget, newTarget] = [await server.login(), await server.login(), await server.login()];
    await shareAShow([
      [reporter.user, oldTarget.user],
      [reporter.user, newTarget.user],
    ]);
    for (const target of [oldTarget, newTarget]) {
      const res = await server.call('POST', '/api/reports', {
        token: reporter.token,
        body: { reportedId: target.user.id, reason: 'spam' },
      });
      expect(res.status).toBe(201);
    }
    const reportOf = async (reportedId: number) =>
      (await sql<{ id: number }>(em(), 'select id from reports where reported_id = ?', [reportedId]))[0]?.id;
    const oldId = await reportOf(oldTarget.user.id);
    const newId = await reportOf(newTarget.user.id);
    await sql(em(), `update reports set created_at = now() - interval '31 days' where id = ?`, [oldId]);
    await sql(em(), `update reports set created_at = now() - interval '29 days' where id = ?`, [newId]);
    for (const id of [oldId, newId]) {
      await sql(em(), `insert into report_messages (report_id, seq, content, sent_at) values (?, 1, 'kept', now())`, [
        id,
      ]);
    }

    await queue.enqueue('reportsExpire', { olderThanDays: 30 });
    await until(async () => (await reportOf(oldTarget.user.id)) === undefined, 'the old report deleted');
    expect(await reportOf(newTarget.user.id)).toBe(newId);
    const kept = await sql<{ report_id: number }>(
      em(),
      'select report_id from report_messages where report_id in (?, ?)',
      [oldId, newId],
    );
    expect(kept).toEqual([{ report_id: newId }]);
  });
});
