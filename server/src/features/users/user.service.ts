import { randomBytes } from 'node:crypto';
import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENT_INFO, INTENTS, type Intent, LIMITS, type UpdateUserBody } from '@shared/index';
import { currentIntentOf as intentOf } from '../../core/access';
import { type SignUpMethod, type User, UserProfileSchema, UserSchema } from '../../core/db/entities';
import { publicUserRowOf } from '../../core/matches/decide';
import { unusablePassword } from '../../core/passwords';
import { notFound } from '../../http/errors';

export interface NewUser {
  username: string;
  displayName: string;
  signUpMethod: SignUpMethod;
  isDemo?: boolean;
  romanticTagline?: string | null;
  platonicTagline?: string | null;
  professionalTagline?: string | null;
  intent?: User['intent'];
}

/** Creates a user with one profile per intent, in one transaction. */
export async function createUser(em: EntityManager, input: NewUser): Promise<User> {
  return em.transactional(async (tx) => {
    const user = tx.create(UserSchema, {
      username: input.username,
      password: unusablePassword(),
      displayName: input.displayName,
      signUpMethod: input.signUpMethod,
      isDemo: input.isDemo ?? false,
      intent: input.intent ?? 'romantic',
      romanticTagline: input.romanticTagline ?? null,
      platonicTagline: input.platonicTagline ?? null,
      professionalTagline: input.professionalTagline ?? null,
    });
    await tx.flush();
    for (const intent of INTENTS) {
      tx.create(UserProfileSchema, {
        userId: user.id,
        intent,
        displayName: input.displayName,
        tagline: user[INTENT_INFO[intent].taglineField] ?? null,
      });
    }
    await tx.flush();
    return user;
  });
}

/**
 * The account with this username, ignoring case: "Maya_Newbie" and "maya_newbie" are one account
 * (the unique index `users_username_lower_unique` is on `lower(username)`, and serves this look-up).
 */
export function findByUsername(em: EntityManager, username: string): Promise<User | null> {
  return em.findOne(UserSchema, { [raw('lower(username)')]: username.toLowerCase() });
}

/**
 * A free login name from `base` (a provider's id or handle), within the dev-login rules (letters,
 * digits, `_.-`): the base itself, or with a random suffix when it is taken (unique ignoring case).
 * A name taken between this check and the insert is a unique clash the caller retries.
 */
export async function freeUsername(em: EntityManager, base: string): Promise<string> {
  const clean = base.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, LIMITS.usernameMaxLength - 5) || 'member';
  if (!(await findByUsername(em, clean))) return clean;
  for (;;) {
    const candidate = `${clean}_${randomBytes(2).toString('hex')}`;
    if (!(await findByUsername(em, candidate))) return candidate;
  }
}

/** The intent the person is in now (404 when there is no such person). */
export async function currentIntentOf(em: EntityManager, userId: number): Promise<Intent> {
  const intent = await intentOf(em, userId);
  if (!intent) throw notFound('User not found.');
  return intent;
}

/** Another person as the viewer may see them in one intent (see canSee in core/access), with that intent's profile. */
export async function publicUserRow(em: EntityManager, userId: number, intent: Intent) {
  const row = await publicUserRowOf(em, userId, intent);
  if (!row) throw notFound('User not found.');
  return row;
}

/** Applies an allow-listed change to a user and keeps their per-intent profiles in step. */
export async function updateUser(em: EntityManager, user: User, body: UpdateUserBody): Promise<User> {
  const { matchPreferences, setupComplete, ...fields } = body;
  em.assign(user, fields);
  if (setupComplete && !user.setupCompletedAt) user.setupCompletedAt = new Date();
  if (matchPreferences) user.matchPreferences = { ...user.matchPreferences, ...matchPreferences };
  const profiles = await em.find(UserProfileSchema, { userId: user.id });
  for (const profile of profiles) {
    if (body.displayName !== undefined) profile.displayName = body.displayName;
    const taglineField = INTENT_INFO[profile.intent].taglineField;
    if (body[taglineField] !== undefined) profile.tagline = body[taglineField];
  }
  await em.flush();
  return user;
}
