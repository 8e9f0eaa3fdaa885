// Moderation roles (docs/moderation.md, "Roles"), granted and revoked from the command line only
// (`npm run admin`, scripts/admin.ts): no route can make anyone a moderator.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ROLES, type Role } from '@shared/index';
import { sql } from '../../core/db/sql';

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** Gives the account this role; answers false when there is no such account. */
export async function grantRole(em: EntityManager, username: string, role: Role): Promise<boolean> {
  const rows = await sql(em, 'update users set role = ? where lower(username) = lower(?) returning id', [
    role,
    username,
  ]);
  return rows.length > 0;
}

/** Takes the account's role away (and the people it had claimed); false when there is no such account. */
export async function revokeRole(em: EntityManager, username: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const rows = await sql<{ id: number }>(
      tx,
      'update users set role = null where lower(username) = lower(?) returning id',
      [username],
    );
    if (rows[0]) await sql(tx, 'delete from moderation_claims where moderator_id = ?', [rows[0].id]);
    return rows.length > 0;
  });
}

export async function listRoles(em: EntityManager): Promise<{ username: string; role: Role }[]> {
  return sql<{ username: string; role: Role }>(
    em,
    'select username, role from users where role is not null order by role, lower(username)',
  );
}
