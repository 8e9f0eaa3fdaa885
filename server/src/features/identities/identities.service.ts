// An account's ways to sign in (docs/auth.md, "Ways to sign in"): the list the profile shows,
// renaming a passkey, removing a way in (after a fresh proof, never the last one: ways-in.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SignInWay, SignInWayKind, SignInWays } from '@shared/index';
import type { AppDeps } from '../../app-deps';
import { type IdentityProvider, type SignUpMethod, UserSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import type { Effects } from '../../core/realtime/effects';
import { badRequest, notFound } from '../../http/errors';
import type { AuthContext } from '../../http/request-context';
import { revokeRemovedLink } from '../bluesky/bluesky.service';
import { devLoginOpens, removeIdentity, WAYS_IN_TEXTS } from './ways-in';

type WaysDeps = Pick<AppDeps, 'config' | 'reauth'>;

interface WayRow {
  id: number;
  provider: IdentityProvider;
  subject: string;
  handle: string | null;
  backed_up: boolean | null;
  created_at: string;
  last_used_at: string | null;
}

const KIND: Record<IdentityProvider, SignInWayKind> = {
  passkey: 'passkey',
  email: 'email',
  bluesky: 'bluesky',
  spotify: 'spotify',
};

/** Raw timestamps come as text (`2026-11-26 19:23:52.123+00`). */
const iso = (text: string | null) => (text ? new Date(text).toISOString() : null);

function labelOf(row: WayRow): string {
  switch (row.provider) {
    case 'passkey':
      return row.handle ?? 'Passkey';
    case 'email':
      return row.subject;
    case 'bluesky':
      return row.handle ? `@${row.handle}` : row.subject;
    case 'spotify':
      return 'Spotify';
  }
}

/** The caller's ways in: passkeys (oldest first), email, Bluesky, Spotify, then development login. */
export async function signInWays(deps: WaysDeps, em: EntityManager, auth: AuthContext): Promise<SignInWays> {
  const rows = await sql<WayRow>(
    em,
    `select id, provider, subject, handle, backed_up, created_at, last_used_at from user_identities
      where user_id = ?
      order by case provider when 'passkey' then 0 when 'email' then 1 when 'bluesky' then 2 else 3 end, id`,
    [auth.userId],
  );
  const ways: SignInWay[] = rows.map((row) => ({
    id: row.id,
    kind: KIND[row.provider],
    label: labelOf(row),
    createdAt: iso(row.created_at),
    lastUsedAt: iso(row.last_used_at),
    backedUp: row.provider === 'passkey' ? Boolean(row.backed_up) : null,
  }));
  const [user] = await sql<{ username: string; sign_up_method: SignUpMethod; created_at: string }>(
    em,
    'select username, sign_up_method, created_at from users where id = ?',
    [auth.userId],
  );
  if (!user) throw notFound('User not found.');
  // Not an identity (nothing to remove): shown so the list matches what opens the account.
  if (devLoginOpens(deps.config, user.sign_up_method)) {
    ways.push({
      id: null,
      kind: 'devLogin',
      label: `Development login as ${user.username}`,
      createdAt: iso(user.created_at),
      lastUsedAt: null,
      backedUp: null,
    });
  }
  const freshUntil = await deps.reauth.freshUntil(em, auth);
  return { ways, freshUntil: freshUntil?.toISOString() ?? null };
}

/** Renames one of the caller's passkeys: 404 for an identity that is not theirs, 400 for another kind. */
export async function renamePasskey(em: EntityManager, userId: number, wayId: number, name: string): Promise<void> {
  const [row] = await sql<{ provider: IdentityProvider }>(
    em,
    'select provider from user_identities where id = ? and user_id = ?',
    [wayId, userId],
  );
  if (!row) throw notFound(WAYS_IN_TEXTS.notFound);
  if (row.provider !== 'passkey') throw badRequest('Only passkeys can be renamed.');
  await sql(em, 'update user_identities set handle = ?, updated_at = now() where id = ?', [name, wayId]);
}

/**
 * Removes one of the caller's ways in after a fresh proof (403 `reauth_required` otherwise): 404
 * for an identity that is not theirs, 409 for their last way in. Bluesky's session is revoked at
 * the person's server; Spotify takes the entries its sync added with it.
 */
export async function removeSignInWay(
  deps: Pick<AppDeps, 'config' | 'reauth' | 'bluesky' | 'logger'> & { effects: Effects },
  em: EntityManager,
  auth: AuthContext,
  wayId: number,
): Promise<void> {
  await deps.reauth.require(em, auth);
  const removed = await removeIdentity(em, deps.config, auth.userId, { id: wayId });
  if (removed.provider === 'bluesky') await revokeRemovedLink(deps, removed);
  if (removed.provider === 'spotify') deps.effects.relayOutbox();
  // The account view shows the Spotify and Bluesky links: every tab hears of the change.
  if (removed.provider === 'bluesky' || removed.provider === 'spotify') {
    deps.effects.userUpdated(await em.fork().findOneOrFail(UserSchema, auth.userId));
  }
}
