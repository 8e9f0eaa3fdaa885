import { z } from 'zod';
import { LIMITS } from '../constants';
import { IntentSchema, TimestampSchema } from './common';

export const MatchPreferencesSchema = z.object({
  minMatchPercentage: z.number().int().min(0).max(100).default(0),
});
export type MatchPreferences = z.infer<typeof MatchPreferencesSchema>;

/**
 * What anyone signed in may see of a user. Username, Spotify/ATProto ids, sync times,
 * preferences, password and every token are never part of it.
 */
export const PublicUserSchema = z.object({
  id: z.number().int(),
  displayName: z.string(),
  profilePicture: z.string().nullable(),
  intent: IntentSchema,
  tagline: z.string().nullable(),
  romanticTagline: z.string().nullable(),
  platonicTagline: z.string().nullable(),
  professionalTagline: z.string().nullable(),
  videoIntroUrl: z.string().nullable(),
});
export type PublicUser = z.infer<typeof PublicUserSchema>;

/** What a user sees of themself: public fields plus their own account data, still no secrets. */
export const SelfUserSchema = PublicUserSchema.extend({
  username: z.string(),
  spotifyId: z.string().nullable(),
  spotifyConnected: z.boolean(),
  lastSpotifySync: TimestampSchema.nullable(),
  atpHandle: z.string().nullable(),
  matchPreferences: MatchPreferencesSchema,
  createdAt: TimestampSchema,
});
export type SelfUser = z.infer<typeof SelfUserSchema>;

/** Which intent's presentation of another person to show (default: the caller's current intent). */
export const UserViewQuerySchema = z.object({ intent: IntentSchema.optional() });

/** GET /api/users/:id answers with the self shape for the owner, the public one otherwise. */
export const UserResponseSchema = z.union([SelfUserSchema, PublicUserSchema]);
export type UserResponse = z.infer<typeof UserResponseSchema>;

export function isSelfUser(user: UserResponse): user is SelfUser {
  return 'username' in user;
}

const taglineField = z.string().trim().max(LIMITS.taglineMaxLength).nullable();

/** The only fields a user may change on themself through PUT /api/users/:id. */
export const UpdateUserBodySchema = z
  .strictObject({
    intent: IntentSchema,
    displayName: z.string().trim().min(1, 'Display name is required').max(LIMITS.displayNameMaxLength),
    romanticTagline: taglineField,
    platonicTagline: taglineField,
    professionalTagline: taglineField,
    matchPreferences: MatchPreferencesSchema.partial(),
  })
  .partial();
export type UpdateUserBody = z.infer<typeof UpdateUserBodySchema>;
