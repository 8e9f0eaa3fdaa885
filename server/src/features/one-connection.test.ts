// "A request inside a transaction never waits for a second pooled connection" (ARCHITECTURE.md):
// with a pool of ONE connection, a statement that escapes its transaction would wait for the
// connection its own transaction holds, until the acquire timeout. Every transactional service
// must therefore complete here.
import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormConfig } from '../core/db/orm-config';
import { sql } from '../core/db/sql';
import { recomputeUser } from '../core/matching/precompute';
import { uniqueName } from '../test/harness';
import { testDatabaseUrl } from '../test/test-stack';
import { markRead, storeMessage } from './chat/message.service';
import { block, decide, visibleMatch } from './matches/match.service';
import { importFeeds, searchCatalog } from './podcasts/podcast.service';
import { createUser } from './users/user.service';

describe('transactions on a pool of one connection', () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(testDatabaseUrl(), { pool: { min: 0, max: 1, acquireTimeoutMillis: 3000 } }));
  });
  afterAll(() => orm.close());

  const person = () =>
    createUser(orm.em.fork(), { username: uniqueName('one'), displayName: 'One', signUpMethod: 'dev_login' });

  it('detects a statement that escapes its transaction (the check itself can fail)', async () => {
    const escaping = orm.em.fork().transactional(async (tx) => {
      await tx.getConnection().execute('select 1'); // no transaction context: a second connection
    });
    await expect(escaping).rejects.toThrow(/acquir/i);
  });

  it('likes, message sends, read receipts, blocks, library imports, search and recomputes each run on their one connection', async () => {
    const [a, b, c] = [await person(), await person(), await person()];
    const imported = await importFeeds(orm.em.fork(), a.id, [
      { feedUrl: `https://one.example.com/${uniqueName()}.xml`, title: 'One connection show' },
    ]);
    expect(imported.added).toBe(1);
    const [entry] = await sql<{ podcast_id: number }>(
      orm.em.fork(),
      'select podcast_id from user_podcasts where user_id = ?',
      [a.id],
    );
    await sql(
      orm.em.fork(),
      'insert into user_podcasts (user_id, podcast_id, hidden, times_listened) values (?, ?, false, 1)',
      [b.id, entry?.podcast_id],
    );
    expect((await recomputeUser(orm.em.fork(), a.id)).users).toBe(1);
    expect((await decide(orm.em.fork(), a.id, b.id, 'romantic', true)).becameMutual).toBe(false);
    const mutual = await decide(orm.em.fork(), b.id, a.id, 'romantic', true);
    expect(mutual.becameMutual).toBe(true);
    const send = { matchId: mutual.row.id, content: 'one connection', clientId: randomUUID() };
    expect((await storeMessage(orm.em.fork(), a.id, send)).message.seq).toBe(1);
    expect((await storeMessage(orm.em.fork(), a.id, send)).created).toBe(false);
    const match = await visibleMatch(orm.em.fork(), mutual.row.id, b.id);
    expect((await markRead(orm.em.fork(), match, b.id, 1)).readSeq).toBe(1);
    expect(await block(orm.em.fork(), c.id, a.id)).toEqual([]);
    expect(await searchCatalog(orm.em.fork(), 'one connection', 5, a.id)).not.toHaveLength(0);
  });
});
