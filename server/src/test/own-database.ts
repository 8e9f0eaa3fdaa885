// A second database of a test file's own on the tier's cluster, for tests that need an older schema
// or a database beside the file's own (server/src/test/test-stack.ts).
import { dropDatabases, recreateDatabase } from '../../../scripts/lib/local-stack';
import { cloneMigratedDatabase, testPostgresBase } from './test-stack';

export interface OwnDatabase {
  url: string;
  drop: () => Promise<void>;
}

const dropper = (name: string) => () => dropDatabases(testPostgresBase(), [name]);

/** An empty database (no schema), e.g. to migrate up to an older point. */
export async function ownDatabase(name: string): Promise<OwnDatabase> {
  return { url: await recreateDatabase(testPostgresBase(), name), drop: dropper(name) };
}

/** An own database with the current schema (a copy of the tier's migrated template). */
export async function ownMigratedDatabase(name: string): Promise<OwnDatabase> {
  return { url: await cloneMigratedDatabase(name), drop: dropper(name) };
}
