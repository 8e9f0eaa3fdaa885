import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './orm-config';

export type Orm = MikroORM;

export function initOrm(databaseUrl: string): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl));
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
