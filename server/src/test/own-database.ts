// A database of one test file's own on the tier's cluster, for tests that need a known catalog or
// an older schema (the tier's database holds other tests' rows and is already migrated).
import pg from 'pg';
import { inject } from 'vitest';
import { recreateDatabase } from '../../../scripts/lib/local-stack';

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
