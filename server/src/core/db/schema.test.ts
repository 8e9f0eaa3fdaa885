// Entities and migrations describe one schema (docs/architecture.md, "Data"): on a freshly migrated
// database the documented create-migration command has nothing to write, not even after a full
// recompute swapped its tables in, and raw rows (`RowOf`) carry exactly the columns of the tables.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownMigratedDatabase } from '../../test/own-database';
import { rebuildEveryone } from '../matching/full-recompute';
import { type MatchingModelSchema, PodcastSchema, UserPodcastSchema, UserSchema } from './entities';
import { initOrm } from './orm';
import { columnName, type RowOf, sql } from './sql';

describe('entities and migrations describe one schema', () => {
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let orm: MikroORM;
  let scratch: string;

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_schema');
    orm = await initOrm(database.url);
    scratch = await mkdtemp(path.join(os.tmpdir(), 'podmatch-migration-'));
  });

  afterAll(async () => {
    await orm?.close();
    await database?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /**
   * What `scripts/db/create-migration.ts` would write, written into a scratch folder (never into
   * migrations/): the statements up and down, and the file if there were any.
   */
  async function generatedMigration() {
    const result = await orm.getMigrator().createMigration(scratch);
    const statements = (list: string[]) => list.filter((statement) => statement.trim() !== '');
    return { up: statements(result.diff.up), down: statements(result.diff.down), files: await readdir(scratch) };
  }

  const withClient = async <T>(run: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  };

  const tables = () =>
    Object.values(orm.getMetadata().getAll()).filter((meta) => !meta.embeddable && !meta.virtual && meta.tableName);

  it('a migration generated on a freshly migrated database is empty', async () => {
    const migration = await generatedMigration();
    console.log(
      `[schema] ${tables().length} entities; generated migration: ${migration.up.length} statements up, ${migration.down.length} down`,
    );
    expect(migration.up).toEqual([]);
    expect(migration.down).toEqual([]);
    expect(migration.files).toEqual([]);
    expect(await orm.getMigrator().checkMigrationNeeded()).toBe(false);
  });

  it('every expression index of the entities is the index the migrations built', async () => {
    // The schema diff compares such indexes by name only: build each one from the entity's
    // expression in place of the migrated one and compare PostgreSQL's own definitions.
    const indexes = tables().flatMap((meta) =>
      [...meta.indexes, ...meta.uniques].flatMap((index) =>
        typeof index.expression === 'string' ? [{ name: index.name as string, expression: index.expression }] : [],
      ),
    );
    expect(indexes.length).toBeGreaterThan(0);
    const definition = async (client: pg.Client, name: string) =>
      (
        await client.query<{ def: string }>(
          `select pg_get_indexdef(c.oid) as def from pg_class c where c.relname = $1 and c.relkind = 'i'`,
          [name],
        )
      ).rows[0]?.def;
    const mismatches = await withClient(async (client) => {
      await client.query('begin');
      try {
        const found: { name: string; migrated: string | undefined; entity: string | undefined }[] = [];
        for (const { name, expression } of indexes) {
          const migrated = await definition(client, name);
          if (migrated) await client.query(`drop index ${client.escapeIdentifier(name)}`);
          await client.query(expression);
          const entity = await definition(client, name);
          if (migrated !== entity) found.push({ name, migrated, entity });
        }
        return found;
      } finally {
        await client.query('rollback');
      }
    });
    console.log(`[schema] ${indexes.length} expression indexes compared, ${mismatches.length} differ`);
    expect(mismatches).toEqual([]);
  });

  it('every table has an entity, with exactly its columns, named as RowOf names them', async () => {
    const skipped = orm.config.get('schemaGenerator').skipTables ?? [];
    const databaseTables = await withClient(async (client) =>
      (await client.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public'`)).rows
        .map((row) => row.name)
        .filter((name) => name !== orm.config.get('migrations').tableName && !skipped.includes(name))
        .sort(),
    );
    expect(databaseTables).toEqual(
      tables()
        .map((meta) => meta.tableName)
        .sort(),
    );

    const differences = await withClient(async (client) => {
      const found: { table: string; columns: string[]; properties: string[] }[] = [];
      for (const meta of tables()) {
        // Collections (the other side of a relation) have no column of their own.
        const persisted = Object.values(meta.properties).filter(
          (prop) => prop.persist !== false && prop.kind !== '1:m' && prop.kind !== 'm:n',
        );
        const named = persisted.map((prop) => prop.fieldNames.join(','));
        // A relation kept as an object (`user`, not `userId`) names its column `<name>_id`.
        const expected = persisted.map((prop) =>
          prop.kind === 'm:1' && !prop.mapToPk ? `${columnName(prop.name)}_id` : columnName(prop.name),
        );
        const { fields } = await client.query(`select * from ${client.escapeIdentifier(meta.tableName)} limit 0`);
        const columns = fields.map((field) => field.name).sort();
        if (
          JSON.stringify(columns) !== JSON.stringify([...expected].sort()) ||
          JSON.stringify(named) !== JSON.stringify(expected)
        ) {
          found.push({ table: meta.tableName, columns, properties: named.sort() });
        }
      }
      return found;
    });
    expect(differences).toEqual([]);
  });

  it('after a full recompute swapped its tables in, and with its scratch tables left behind, still nothing to generate', async () => {
    const em = orm.em.fork() as EntityManager;
    const [a, b] = ['schema_a', 'schema_b'].map((username) =>
      em.create(UserSchema, { username, password: 'x', displayName: username, signUpMethod: 'dev_login' }),
    );
    const show = em.create(PodcastSchema, { name: 'Schema Show', categories: [] });
    await em.flush();
    for (const person of [a, b]) em.create(UserPodcastSchema, { userId: person?.id as number, podcastId: show.id });
    await em.flush();

    const result = await rebuildEveryone(orm.em.fork() as EntityManager);
    expect(result.users).toBe(2);
    // A recompute that died before its swap leaves these behind (skipped by the ORM config).
    await withClient(async (client) => {
      await client.query('create table feed_candidates_next (like feed_candidates including defaults)');
      await client.query('create table taste_neighbours_next (like taste_neighbours including defaults)');
    });

    const migration = await generatedMigration();
    expect(migration.up).toEqual([]);
    expect(migration.down).toEqual([]);

    // Raw rows come back as RowOf says: timestamps as text, int8 as text, bytea as a Buffer.
    const [model] = await sql<RowOf<typeof MatchingModelSchema>>(em, 'select * from matching_model');
    expect(model?.users).toBe(2);
    expect(typeof model?.snapshot_at).toBe('string');
    expect(typeof model?.change_seq).toBe('string');
    expect(Buffer.isBuffer(model?.podcast_ids)).toBe(true);
  });
});
