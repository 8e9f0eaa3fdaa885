// A database of one test file's own on the tier's cluster, for tests that need a known catalog or
// an older schema (the tier's database holds other tests' rows and is already migrated).
import pg from 'pg';
import { inject } from 'vitest';
import { recreateDatabase } from '../../../scripts/lib/local-stack';
import { initOrm, migrate } from '../core/db/orm';

export async function ownDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = inject('databaseUrl').replace(/[^/]+$/, '');
  const url = await recreateDatabase(base, name);
  const drop = async () => {
    const client = new pg.Client({ connectionString: `${base}postgres` });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url, drop };
}

/**
 * An own database with the current schema, for tests that run on a Redis of their own: their
 * servers' outbox relays must not take other tests' staged jobs into a Redis nobody else reads.
 */
export async function ownMigratedDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await ownDatabase(name);
  const orm = await initOrm(db.url);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  return db;
}
