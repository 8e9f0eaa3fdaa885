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
