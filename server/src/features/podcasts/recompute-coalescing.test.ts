// Library edits and the recompute of who matches the person (docs/podcasts.md): however many
// edits arrive at once, the person has at most one recompute waiting, and an edit made while
// their recompute runs is followed by one more run after it (none lost). Real PostgreSQL, Redis and
// BullMQ; a BullMQ worker of the test's own plays the matching worker, so a run can be held open.
import fs from 'node:fs';
import path from 'node:path';
import { type JobPayload, jobs, QUEUES } from '@shared/index';
import { type Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import type { Person } from '../../test/chat-flow';
import { startTestServer, type TestServer, until } from '../../test/harness';
import { testRedisUrl } from '../../test/test-stack';

type RecomputeJob = Job<JobPayload<'matchesRecompute'>>;

const EDITS = 40;

describe('recomputes after library edits', () => {
  let server: TestServer;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    server = await startTestServer();
    redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    queue = new Queue(QUEUES.matching, { connection: redis });
  });

  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await server?.close();
  });

  /** A fresh person with the two podcasts of an OPML export: their entry ids. */
  async function personWithLibrary(): Promise<{ me: Person; entries: number[] }> {
    const login = await server.login();
    const me = { token: login.token, id: login.user.id };
    const form = new FormData();
    form.append(
      'opml',
      new Blob([fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'overcast.opml'))]),
      'a.opml',
    );
    const imported = await server.call('POST', `/api/users/${me.id}/podcasts/opml`, { token: me.token, form });
    expect(imported.status, imported.text).toBe(202);
    const list = await server.call('GET', `/api/users/${me.id}/podcasts`, { token: me.token });
    return { me, entries: (list.json as { id: number }[]).map((entry) => entry.id) };
  }

  /** `EDITS` hide/show edits of the person's entries, all at once (several times the pool of 10). */
  async function editsAtOnce(me: Person, entries: number[]): Promise<void> {
    const results = await Promise.all(
      Array.from({ length: EDITS }, (_, i) =>
        server.call('PUT', `/api/user-podcasts/${entries[i % entries.length]}`, {
          token: me.token,
          body: { hidden: i % 4 < 2 },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(EDITS).fill(200));
    await server.running.deps.outbox.flush();
  }

  /** This person's recompute jobs not finished yet, by state. */
  async function pendingOf(userId: number): Promise<RecomputeJob[]> {
    const pending = (await queue.getJobs(['waiting', 'prioritized', 'delayed', 'paused', 'active'])) as RecomputeJob[];
    return pending.filter(
      (job) => job?.name === jobs.matchesRecompute.name && job.data.scope === 'user' && job.data.userId === userId,
    );
  }

  async function outboxRowsOf(userId: number): Promise<number> {
    const [row] = await sql<{ n: number }>(
      server.running.deps.orm.em.fork(),
      `select count(*)::int as n from job_outbox where job_key = 'matchesRecompute' and (payload->>'userId')::int = ?`,
      [userId],
    );
    return row?.n ?? 0;
  }

  it(`${EDITS} edits at once leave one waiting recompute for the person`, async () => {
    const { me, entries } = await personWithLibrary();
    await editsAtOnce(me, entries);
    const pending = await pendingOf(me.id);
    console.log(
      `${EDITS} simultaneous edits: ${pending.length} recompute job(s) waiting, ${await outboxRowsOf(me.id)} outbox rows`,
    );
    expect(pending).toHaveLength(1);
    expect(await outboxRowsOf(me.id)).toBe(0);
  });

  it('edits made while the recompute runs get one more run after it, and only one', async () => {
    const { me, entries } = await personWithLibrary();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runs: { id: string | undefined; startedAt: number; endedAt?: number }[] = [];
    const connection = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const worker = new Worker(
      QUEUES.matching,
      async (job: RecomputeJob) => {
        // Other tests' leftovers are done at once; this person's first run waits for the test.
        if (job.data.scope !== 'user' || job.data.userId !== me.id) return { users: 0, rows: 0 };
        const run: (typeof runs)[number] = { id: job.id, startedAt: Date.now() };
        runs.push(run);
        if (runs.length === 1) await held;
        run.endedAt = Date.now();
        return { users: 1, rows: 0 };
      },
      { connection, concurrency: 1 },
    );
    try {
      await until(async () => runs.length === 1, 'the import’s recompute to start');
      // The recompute has read the library; now it changes, many times at once.
      await editsAtOnce(me, entries);
      const lastEditAt = Date.now();
      // Nothing queued beside the running one yet: the edits wait as one run for after it.
      expect((await pendingOf(me.id)).map((job) => job.id)).toEqual([runs[0]?.id]);
      release();
      await until(async () => runs.length === 2 && runs[1]?.endedAt !== undefined, 'the run after the edits');
      console.log(
        `a run held open during ${EDITS} edits, then ${runs.length} runs in all; the second started ` +
          `${(runs[1]?.startedAt ?? 0) - lastEditAt} ms after the last edit was answered`,
      );
      expect(runs[1]?.startedAt).toBeGreaterThanOrEqual(lastEditAt);
      expect(await pendingOf(me.id)).toEqual([]);
      expect(runs).toHaveLength(2);
    } finally {
      release();
      await worker.close();
      connection.disconnect();
    }
  });
});
