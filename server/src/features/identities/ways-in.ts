// "Never the last way in" (docs/auth.md, "Ways to sign in"): the one rule every path that removes a
// way to sign in goes through (the profile's list, the Bluesky unlink), so no account is left that
// nobody can open. An account's ways in are its identities (passkeys, email, Bluesky, Spotify) and,
// while development login is on, development login for an account it opened itself.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SignUpMethod, UserIdentitySchema } from '../../core/db/entities';
import { type RowOf, sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import { conflict, notFound } from '../../http/errors';

export const WAYS_IN_TEXTS = {
  last: 'This is your only way to sign in. Add another way first (a passkey or your email), then remove this one.',
  notFound: 'There is no such way to sign in on your account.',
} as const;

/** Development login opens an account only while it is on, and only an account it opened itself. */
export const devLoginOpens = (config: { allowDevLogin: boolean }, signUpMethod: SignUpMethod) =>
  config.allowDevLogin && signUpMethod === 'dev_login';

/**
 * Locks the account's ways in until the transaction ends (its users row, as deleting the account
 * does) and answers how many it has: two removals racing each other count one after the other.
 */
export async function lockWaysIn(tx: EntityManager, config: { allowDevLogin: boolean }, userId: number) {
  const [user] = await sql<{ sign_up_method: SignUpMethod }>(
    tx,
    'select sign_up_method from users where id = ? for update',
    [userId],
  );
  if (!user) throw notFound('User not found.');
  // Counted by a statement of its own, after the lock: a statement that waited for the lock still
  // reads with the snapshot it began with, and would miss what the lock holder removed.
  const [identities] = await sql<{ n: number }>(
    tx,
    'select count(*)::int as n from user_identities where user_id = ?',
    [userId],
  );
  return (identities?.n ?? 0) + (devLoginOpens(config, user.sign_up_method) ? 1 : 0);
}

/** A removed identity's row: what is needed to finish removing it at its provider (Bluesky's revoke). */
export type RemovedIdentity = Pick<
  RowOf<typeof UserIdentitySchema>,
  'id' | 'provider' | 'subject' | 'access_token' | 'refresh_token' | 'session'
> & { user_id: number };

/**
 * Removes one identity of `userId` (in a transaction of its own): 404 when the account has no such
 * identity, 409 when it is the account's last way in. Removing Spotify also removes the entries its
 * sync added (who matches the person is recomputed through the outbox: relay it after).
 */
export async function removeIdentity(
  em: EntityManager,
  config: { allowDevLogin: boolean },
  userId: number,
  which: { id: number } | { provider: 'bluesky' | 'spotify' },
): Promise<RemovedIdentity> {
  return em.transactional(async (tx) => {
    const ways = await lockWaysIn(tx, config, userId);
    const [identity] = await sql<RemovedIdentity>(
      tx,
      `select id, user_id, provider, subject, access_token, refresh_token, session from user_identities
        where user_id = ? and ${'id' in which ? 'id = ?' : 'provider = ?'}`,
      [userId, 'id' in which ? which.id : which.provider],
    );
    if (!identity) throw notFound(WAYS_IN_TEXTS.notFound);
    if (ways <= 1) throw conflict(WAYS_IN_TEXTS.last);
    if (identity.provider === 'spotify') {
      await sql(tx, `delete from user_podcasts where user_id = ? and source = 'spotify'`, [userId]);
      await stageJob(tx, 'matchesRecompute', { scope: 'user', userId });
    }
    await sql(tx, 'delete from user_identities where id = ?', [identity.id]);
    return identity;
  });
}
