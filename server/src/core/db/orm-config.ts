import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities';
import { migrationsList } from './migrations';

/** The one ORM configuration, shared by server, worker, migrate and seed. */
export function ormConfig(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: true },
    // Every table has an entity and a generated migration on a migrated database is empty
    // (schema.test.ts), except these, which the schema diff must neither drop nor create:
    schemaGenerator: {
      skipTables: [
        // The full recompute's scratch copies (core/matching/full-recompute.ts): built beside
        // feed_candidates and taste_neighbours and renamed over them, or left behind by a recompute
        // that died midway until the next one drops them.
        'feed_candidates_next',
        'taste_neighbours_next',
      ],
    },
    pool: { min: 0, max: 10 },
    migrations: {
      // Listed explicitly: the same code path works under tsx, in tests and in containers.
      migrationsList,
      path: 'server/src/core/db/migrations',
      emit: 'ts',
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    debug: false,
    ...overrides,
  });
}
