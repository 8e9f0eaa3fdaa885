import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { DEFAULT_INTENT, INTENTS, type MatchPreferences, ROLES } from '@shared/index';
import { UserIdentitySchema } from './user-identity.entity';

export const SIGN_UP_METHODS = ['dev_login', 'spotify', 'demo', 'email', 'passkey', 'bluesky'] as const;
export type SignUpMethod = (typeof SIGN_UP_METHODS)[number];

/**
 * A person with an account (SPEC section 3, users). Secrets are hidden from serialization; what
 * they linked at other services (and its tokens) is in user_identities.
 */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.integer().primary().autoincrement(),
    /** Unique ignoring case (`users_username_lower_unique`): look people up by `lower(username)`. */
    username: p.string(),
    password: p.text().hidden(),
    displayName: p.string(),
    profilePicture: p.text().nullable(),
    intent: p.enum([...INTENTS]).default(DEFAULT_INTENT),
    matchPreferences: p.json<MatchPreferences>().onCreate(() => ({ minMatchPercentage: 0 })),
    tagline: p.text().nullable(),
    romanticTagline: p.text().nullable(),
    platonicTagline: p.text().nullable(),
    professionalTagline: p.text().nullable(),
    videoIntroUrl: p.text().nullable(),
    /**
     * Linked identities (Spotify, Bluesky; user-identity.entity.ts), loaded with the user: a
     * presenter of the user reads them, and nothing else is joined so often.
     */
    identities: () => p.oneToMany(UserIdentitySchema).mappedBy('user').eager(),
    /**
     * How the account was opened. Development login opens only accounts it made itself, never one
     * made by signing in with Spotify (or seeded), whatever its username.
     */
    signUpMethod: p.enum([...SIGN_UP_METHODS]),
    /** The setup wizard step to resume at, and when setup was completed (null: not yet). */
    setupStep: p.smallint().default(0),
    setupCompletedAt: p.datetime().nullable(),
    /** Listening-habits quiz answers by question id (shared/src/quiz.ts). */
    quizAnswers: p
      .json<Record<string, string>>()
      .defaultRaw(`'{}'`)
      .onCreate(() => ({})),
    /** Seeded demo people: a like from anyone is answered at once (SPEC "Demo user"). */
    isDemo: p.boolean().default(false),
    /** Moderation (docs/moderation.md): a role granted from the command line only. */
    role: p.enum([...ROLES]).nullable(),
    /** Hidden from new feeds by a moderator, or automatically after several reporters. */
    feedHidden: p.enum(['moderator', 'automatic']).nullable(),
    /** Suspended until then: no sign-in, gone from feeds and match lists. */
    suspendedUntil: p.datetime().nullable(),
    /** Banned (for good): as suspended, with no end; their pictures and videos are no longer served. */
    bannedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [
    {
      name: 'users_username_lower_unique',
      expression: 'create unique index "users_username_lower_unique" on "users" (lower("username"))',
    },
  ],
});
export type User = InferEntity<typeof UserSchema>;
