import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { DEFAULT_INTENT, INTENTS, type MatchPreferences } from '@shared/index';

export const SIGN_UP_METHODS = ['dev_login', 'spotify', 'demo'] as const;
export type SignUpMethod = (typeof SIGN_UP_METHODS)[number];

/** A person with an account (SPEC section 3, users). Secrets are hidden from serialization. */
/**
 * `hidden: true` for a nullable column: with the literal `true` MikroORM types the value as
 * Hidden<string | null>, to which null cannot be assigned; typed as boolean it stays string | null.
 */
const HIDDEN_NULLABLE = true as boolean;

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
    spotifyId: p.string().nullable().unique(),
    // Encrypted (core/spotify/token-crypto.ts) and hidden: no serialization of a user carries them.
    spotifyAccessToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    spotifyRefreshToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    spotifyTokenExpiry: p.datetime().nullable(),
    lastSpotifySync: p.datetime().nullable(),
    intent: p.enum([...INTENTS]).default(DEFAULT_INTENT),
    matchPreferences: p.json<MatchPreferences>().onCreate(() => ({ minMatchPercentage: 0 })),
    tagline: p.text().nullable(),
    romanticTagline: p.text().nullable(),
    platonicTagline: p.text().nullable(),
    professionalTagline: p.text().nullable(),
    videoIntroUrl: p.text().nullable(),
    // The linked Bluesky identity (docs/bluesky.md): the DID, and the handle its document claims.
    atpDid: p.string().nullable(),
    atpHandle: p.string().nullable(),
    // Encrypted (core/atproto/bluesky-client.ts, bound to this user) and hidden, like Spotify's.
    atpAccessToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    atpRefreshToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    /** The rest of the OAuth session (DPoP key, issuer, scope), encrypted. */
    atpOauthSession: p.text().nullable().hidden(HIDDEN_NULLABLE),
    /** When the access token expires and the refresh token must be used (a refresh moves it). */
    atpRefreshTokenExpiry: p.datetime().nullable(),
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
    {
      // One profile per Bluesky identity.
      name: 'users_atp_did_unique',
      expression: 'create unique index "users_atp_did_unique" on "users" ("atp_did") where "atp_did" is not null',
    },
  ],
});
export type User = InferEntity<typeof UserSchema>;
