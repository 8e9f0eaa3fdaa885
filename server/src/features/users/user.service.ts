import { randomBytes, scryptSync } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENT_INFO, INTENTS, type UpdateUserBody } from '@shared/index';
import { type User, UserProfileSchema, UserSchema } from '../../core/db/entities';

/** Dev-login and OAuth users have no password; store a hash of random bytes nobody knows. */
function unusablePassword(): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('hex')}$${scryptSync(randomBytes(32), salt, 32).toString('hex')}`;
}

export interface NewUser {
  username: string;
  displayName: string;
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

/** Finds the user with this username or creates them; safe when two logins race. */
export async function findOrCreateByUsername(
  em: EntityManager,
  username: string,
): Promise<{ user: User; created: boolean }> {
  const existing = await em.findOne(UserSchema, { username });
  if (existing) return { user: existing, created: false };
  try {
    return { user: await createUser(em.fork(), { username, displayName: username }), created: true };
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    return { user: await em.findOneOrFail(UserSchema, { username }), created: false };
  }
}

/** Applies an allow-listed change to a user and keeps their per-intent profiles in step. */
export async function updateUser(em: EntityManager, user: User, body: UpdateUserBody): Promise<User> {
  const { matchPreferences, ...fields } = body;
  em.assign(user, fields);
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
