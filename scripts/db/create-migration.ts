// Writes a migration for the difference between the entities and the database schema.
// Usage: DATABASE_URL=... node --import tsx scripts/db/create-migration.ts [--initial]
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '@server/core/db/orm-config';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to a database migrated to the current head.');
const orm = await MikroORM.init(ormConfig(url));
try {
  const initial = process.argv.includes('--initial');
  const result = await orm.getMigrator().createMigration(undefined, false, initial);
  console.log(result.fileName ? `Wrote ${result.fileName}; add it to migrations/index.ts` : 'No changes.');
} finally {
  await orm.close();
}
