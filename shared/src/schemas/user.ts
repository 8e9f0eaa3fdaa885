import { z } from 'zod';
import { LIMITS } from '../constants';
import { QuizAnswersSchema, SETUP_STEPS } from '../quiz';
import { IntentSchema, TimestampSchema } from './common';
import { ROLES } from './roles';

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
  /** The setup wizard step to resume at (0-4), and whether setup was completed (docs/profiles.md). */
  setupStep: z
    .number()
    .int()
    .min(0)
    .max(SETUP_STEPS - 1),
  setupComplete: z.boolean(),
  quizAnswers: QuizAnswersSchema,
  /** Moderators and admins only (docs/moderation.md): the app then offers the moderation screens. */
  role: z.enum(ROLES).optional(),
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
    setupStep: z
      .number()
      .int()
      .min(0)
      .max(SETUP_STEPS - 1),
    /** Setup is completed once; it cannot be undone. */
    setupComplete: z.literal(true),
    /** The whole set of answers (replaces the stored one). */
    quizAnswers: QuizAnswersSchema,
  })
  .partial();
export type UpdateUserBody = z.infer<typeof UpdateUserBodySchema>;

/** POST /api/users/:id/profile-picture answers the new picture's URL (the user also gets 'user:updated'). */
export const ProfilePictureResponseSchema = z.object({ profilePicture: z.string() });
export type ProfilePictureResponse = z.infer<typeof ProfilePictureResponseSchema>;

/**
 * The most pixels an uploaded picture may declare (e.g. 8000 x 5000): a few kilobytes of PNG can
 * declare gigapixels that would take gigabytes to decode (a decompression bomb).
 */
export const PICTURE_MAX_PIXELS = 40_000_000;

/** The refusals of a picture upload (SPEC.md sections 5 and 8), as the server words them. */
export const PICTURE_UPLOAD_TEXTS = {
  missing: 'Attach the picture in the form field "profilePicture".',
  tooLarge: 'File too large: please select an image smaller than 5MB.',
  notAnImage: 'Invalid file type: please select an image file (JPEG, PNG, WebP, GIF or AVIF).',
  tooManyPixels: `This image has too many pixels: please select one of at most ${PICTURE_MAX_PIXELS / 1_000_000} megapixels.`,
  unreadable: 'This image could not be read: the file is damaged or incomplete.',
} as const;
