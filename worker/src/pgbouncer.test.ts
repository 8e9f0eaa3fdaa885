// PgBouncer in transaction mode is a supported topology (docs/operations.md, "A connection pooler"):
// a server and a worker whose DATABASE_URL goes through it, with far fewer server connections than
// their pools, migrate an empty database, carry many people liking, matching and chatting at once,
// and run the full recompute (one at a time, COPY included) without leaving settings behind on the
// shared server connections. The browser tests' whole stack also runs through it (scripts/test.ts).

import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '@server/core/db/orm';
import { prepareDatabase } from '@server/core/db/prepare-database';
import { sql } from '@server/core/db/sql';
import { createLogger } from '@server/core/logger';
import { rebuildEveryone } from '@server/core/matching/full-recompute';
import { mutualPair, sendRest } from '@server/test/chat-flow';
import { startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { ownDatabase } from '@server/test/own-database';
import { testDatabaseUrl, testRedisUrl } from '@server/test/test-stack';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgBouncer, startPgBouncer } from '../../scripts/lib/pgbouncer';
import { loadWorkerConfig } from './config';
import { type RunningWorker, startWorker } from './worker';

/** Server connections PgBouncer may open: far fewer than the server's and worker's pools (10 each). */
const SERVER_CONNECTIONS = 4;

describe('through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let through: string;
  let server: TestServer;
  let worker: RunningWorker;
  let orm: MikroORM;

  beforeAll(async () => {
    bouncer = await startPgBouncer({ upstreamUrl: testDatabaseUrl(), poolSize: SERVER_CONNECTIONS, log: () => {} });
    through = bouncer.url(new URL(testDatabaseUrl()).pathname.slice(1));
    server = await startTestServer({ DATABASE_URL: through });
    worker = await startWorker(loadWorkerConfig(testEnv({ DATABASE_URL: through })), createLogger('worker', 'silent'));
    orm = await initOrm(through);
  }, 60_000);
  afterAll(async () => {
    await orm?.close();
    await worker?.close();
    await server?.close();
    await bouncer?.stop();
  });

  /** One query on a fresh client through the pooler (it gets whichever server connection is free). */
  async function throughPooler<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: through });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  it('migrates an empty database from scratch', async () => {
    const empty = await ownDatabase('podmatch_test_pgbouncer_empty');
    try {
      const url = bouncer.url(new URL(empty.url).pathname.slice(1));
      await prepareDatabase({ databaseUrl: url, redisUrl: testRedisUrl(), seed: false, log: () => {} });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: string }>('select count(*) as n from mikro_orm_migrations');
        expect(Number(rows[0]?.n)).toBeGreaterThan(10);
        // Migrating again finds nothing to do (the migrator's bookkeeping works through the pooler).
        await prepareDatabase({ databaseUrl: url, redisUrl: testRedisUrl(), seed: false, log: () => {} });
        const again = await client.query<{ n: string }>('select count(*) as n from mikro_orm_migrations');
        expect(again.rows[0]?.n).toBe(rows[0]?.n);
      } finally {
        await client.end();
      }
    } finally {
      await empty.drop();
    }
  }, 60_000);

  it(`carries 30 pairs liking, matching and sending 5 messages each at once over ${SERVER_CONNECTIONS} server connections`, async () => {
    const pairs = await Promise.all(Array.from({ length: 30 }, () => mutualPair(server)));
    const results = await Promise.all(
      pairs.flatMap(({ a, b, matchId }) =>
        Array.from({ length: 5 }, (_, i) => sendRest(server, i % 2 ? b : a, matchId, `message ${i}`)),
      ),
    );
    expect(results.filter((r) => r.status !== 201).map((r) => r.text)).toEqual([]);
    // Every conversation holds its 5 messages numbered 1..5, none lost or doubled.
    const rows = await sql<{ match_id: number; seqs: number[] }>(
      orm.em.fork(),
      'select match_id, array_agg(seq order by seq) as seqs from messages where match_id = any(?::int[]) group by match_id',
      [`{${pairs.map((p) => p.matchId).join(',')}}`],
    );
    expect(rows).toHaveLength(30);
    for (const row of rows) expect(row.seqs.map(Number)).toEqual([1, 2, 3, 4, 5]);
    // The outbox relay works through the pooler: every job staged with these writes left it.
    await until(
      async () =>
        (await throughPooler<{ n: string }>('select count(*) as n from job_outbox'))[0]?.n === '0' ? true : undefined,
      'the outbox drained',
    );
  }, 120_000);

  it('runs the full recompute (COPY, swap) one at a time and leaves no setting on the shared connections', async () => {
    const everyone = await sql<{ n: string }>(orm.em.fork(), 'select count(*) as n from user_podcasts');
    expect(Number(everyone[0]?.n)).toBeGreaterThan(0);
    let second: Awaited<ReturnType<typeof rebuildEveryone>> | undefined;
    const first = await rebuildEveryone(orm.em.fork() as EntityManager, {
      // A second recompute asked for while the first runs is skipped: the lock works through the pooler.
      afterSnapshot: async () => {
        second = await rebuildEveryone(orm.em.fork() as EntityManager);
      },
    });
    expect(first.users).toBeGreaterThanOrEqual(60);
    expect(first.rows).toBeGreaterThan(0);
    expect(second).toEqual({ users: 0, rows: 0 });
    const stored = await throughPooler<{ n: string }>('select count(*) as n from feed_candidates');
    expect(Number(stored[0]?.n)).toBe(first.rows);
    // `set local` ended with the transaction: every server connection has the cluster's settings.
    const direct = new pg.Client({ connectionString: testDatabaseUrl() });
    await direct.connect();
    const expected = (
      await direct.query(
        `select current_setting('synchronous_commit') as sync, current_setting('maintenance_work_mem') as mem`,
      )
    ).rows[0];
    await direct.end();
    const settings = await Promise.all(
      Array.from({ length: SERVER_CONNECTIONS * 2 }, () =>
        throughPooler<{ sync: string; mem: string }>(
          `select current_setting('synchronous_commit') as sync, current_setting('maintenance_work_mem') as mem`,
        ),
      ),
    );
    for (const [row] of settings) expect(row).toEqual(expected);
  }, 120_000);
});
