// Migration20261123220000 against usernames that differ only in case, planted in a database of its
// own migrated to the migration before it: who keeps the name, what the others become, and that no
// account or data is lost.
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../../core/db/migrations';
import { initOrm } from '../../core/db/orm';
import { ownDatabase } from '../../test/own-database';

const MIGRATION = 'Migration20261123220000';

describe(`${MIGRATION}: usernames unique ignoring case`, () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let orm: MikroORM;
  const ids: Record<string, number> = {};
  const t = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
  const long = (c: string) => c.repeat(40);

  const query = <T extends object = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params, 'all');

  async function user(key: string, username: string, createdAt: string) {
    const [row] = await query<{ id: number }>(
      `insert into users (username, password, display_name, match_preferences, sign_up_method, created_at, updated_at)
       values (?, 'x', ?, '{}', 'dev_login', ?, ?) returning id`,
      [username, `shown as ${key}`, createdAt, createdAt],
    );
    ids[key] = row?.id as number;
  }

  const usernameOf = async (key: string) =>
    (await query<{ username: string }>('select username from users where id = ?', [ids[key]]))[0]?.username;

  beforeAll(async () => {
    database = await ownDatabase('podmatch_test_username_case');
    orm = await initOrm(database.url);
    const position = migrationsList.findIndex((m) => m.name === MIGRATION);
    await orm.getMigrator().up({ to: migrationsList[position - 1]?.name as string });

    await user('maya', 'maya', t(1));
    await user('Maya', 'Maya', t(2));
    await user('MAYA', 'MAYA', t(3));
    await user('maya_2', 'maya_2', t(4)); // an unrelated account already called what Maya would become
    // The oldest keeps the name, whatever the order of ids.
    await user('bob', 'bob', t(5));
    await user('Bob', 'Bob', t(1));
    // Same creation time: the lower id keeps it.
    await user('Cy', 'Cy', t(6));
    await user('cy', 'cy', t(6));
    // At the length limit the name is cut to make room for the suffix.
    await user('x40', long('x'), t(1));
    await user('X40', long('X'), t(2));
    await user('alone', 'Alone', t(1));
    await query(
      `insert into sessions (user_id, token_hash, family, created_at, expires_at)
       values (?, 'hash-of-Maya', gen_random_uuid(), now(), now() + interval '1 day')`,
      [ids.Maya],
    );

    await orm.getMigrator().up({ to: MIGRATION });
  });

  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('lets the oldest account of each clash keep its name and renames the others in order', async () => {
    const expected: Record<string, string> = {
      maya: 'maya',
      Maya: 'Maya_3',
      MAYA: 'MAYA_4',
      maya_2: 'maya_2',
      Bob: 'Bob',
      bob: 'bob_2',
      Cy: 'Cy',
      cy: 'cy_2',
      x40: long('x'),
      X40: `${long('X').slice(0, 38)}_2`,
      alone: 'Alone',
    };
    for (const [key, username] of Object.entries(expected)) expect(await usernameOf(key), key).toBe(username);
  });

  it('keeps every account, its display name and its sessions', async () => {
    const rows = await query<{ id: number; display_name: string }>('select id, display_name from users order by id');
    expect(rows.map((r) => r.id).sort((a, b) => a - b)).toEqual(Object.values(ids).sort((a, b) => a - b));
    for (const [key, id] of Object.entries(ids)) {
      expect(rows.find((r) => r.id === id)?.display_name).toBe(`shown as ${key}`);
    }
    const [session] = await query<{ user_id: number }>(
      `select user_id from sessions where token_hash = 'hash-of-Maya'`,
    );
    expect(session?.user_id).toBe(ids.Maya);
  });

  it('leaves every username unique ignoring case, within 40 characters, and refuses a new clash', async () => {
    const [clashes] = await query<{ n: number }>(
      `select count(*)::int as n from (select lower(username) from users group by 1 having count(*) > 1) c`,
    );
    expect(clashes?.n).toBe(0);
    const [longest] = await query<{ n: number }>('select max(length(username))::int as n from users');
    expect(longest?.n).toBeLessThanOrEqual(40);
    await expect(user('again', 'mAyA', t(9))).rejects.toThrow(/users_username_lower_unique/);
    await expect(user('fine', 'maya_5', t(9))).resolves.toBeUndefined();
  });
});
