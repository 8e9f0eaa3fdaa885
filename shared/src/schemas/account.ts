import { z } from 'zod';
import { IntentSchema, TimestampSchema } from './common';
import { SelfUserSchema } from './user';

/** What a person types to confirm deleting their account. */
export const DELETE_ACCOUNT_CONFIRMATION = 'DELETE';

export const DeleteAccountBodySchema = z.strictObject({
  confirm: z.literal(DELETE_ACCOUNT_CONFIRMATION, { error: `Type ${DELETE_ACCOUNT_CONFIRMATION} to confirm.` }),
});
export type DeleteAccountBody = z.infer<typeof DeleteAccountBodySchema>;

/**
 * "Download my data": everything stored about the person, as they may see it. Never a password,
 * token or token hash, never who reported them; other people appear by id and display name only.
 */
export const AccountExportSchema = z.object({
  exportedAt: TimestampSchema,
  account: SelfUserSchema.extend({ signUpMethod: z.string() }),
  profiles: z.array(
    z.object({
      intent: IntentSchema,
      displayName: z.string().nullable(),
      tagline: z.string().nullable(),
      profilePicture: z.string().nullable(),
      videoIntroUrl: z.string().nullable(),
      active: z.boolean(),
    }),
  ),
  podcasts: z.array(
    z.object({
      name: z.string(),
      creator: z.string().nullable(),
      feedUrl: z.string().nullable(),
      source: z.string(),
      hidden: z.boolean(),
      timesListened: z.number().int(),
      episodeCount: z.number().int().nullable(),
      lastListened: TimestampSchema.nullable(),
      lastEpisode: z.string().nullable(),
      addedAt: TimestampSchema,
    }),
  ),
  /** Every like and pass the person made, and the matches they are part of. */
  decisions: z.array(
    z.object({
      otherUserId: z.number().int(),
      otherDisplayName: z.string(),
      intent: IntentSchema,
      liked: z.boolean(),
      acted: z.boolean(),
      favorite: z.boolean(),
      matchPercentage: z.number().int(),
      mutualAt: TimestampSchema.nullable(),
      unmatchedAt: TimestampSchema.nullable(),
      createdAt: TimestampSchema,
    }),
  ),
  messagesSent: z.array(
    z.object({ toUserId: z.number().int(), intent: IntentSchema, content: z.string(), sentAt: TimestampSchema }),
  ),
  blocks: z.array(z.object({ blockedUserId: z.number().int(), createdAt: TimestampSchema })),
  reportsMade: z.array(
    z.object({
      reportedUserId: z.number().int(),
      reason: z.string(),
      details: z.string().nullable(),
      createdAt: TimestampSchema,
    }),
  ),
  sessions: z.array(
    z.object({
      createdAt: TimestampSchema,
      expiresAt: TimestampSchema,
      revokedAt: TimestampSchema.nullable(),
      userAgent: z.string().nullable(),
    }),
  ),
});
export type AccountExport = z.infer<typeof AccountExportSchema>;
