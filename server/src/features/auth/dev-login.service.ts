import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { User } from '../../core/db/entities';
import { stageJob } from '../../core/jobs/outbox';
import { forbidden } from '../../http/errors';
import { createUser, findByUsername } from '../users/user.service';

/**
 * Development login: opens the account with this username (in any case) or makes it, keeping the
 * spelling of the first login as its username and display name. Any number of concurrent logins of
 * one name, in any mix of cases, make one account: the losers of the insert race meet the unique
 * index and open the winner's account. Only accounts development login made itself: a Spotify or
 * seeded account is refused, so knowing someone's username is never enough to become them.
 */
export async function devLoginAccount(em: EntityManager, username: string): Promise<{ user: User; created: boolean }> {
  const found = await openOrMake(em, username);
  if (found.user.signUpMethod !== 'dev_login') {
    throw forbidden('This account signs in another way (for example with Spotify).');
  }
  return found;
}

async function openOrMake(em: EntityManager, username: string): Promise<{ user: User; created: boolean }> {
  const existing = await findByUsername(em, username);
  if (existing) return { user: existing, created: false };
  try {
    // The account and the job that paints its portrait commit together (the job outbox).
    const user = await em.fork().transactional(async (tx) => {
      const made = await createUser(tx, { username, displayName: username, signUpMethod: 'dev_login' });
      await stageJob(tx, 'avatarGenerate', { userId: made.id });
      return made;
    });
    return { user, created: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
  // Another login of the same name (perhaps in other capitals) committed first: theirs is the account.
  const winner = await findByUsername(em, username);
  if (!winner) throw new Error(`dev login: "${username}" clashed on insert but is not there`);
  return { user: winner, created: false };
}
