import { z } from 'zod';
import { IntentSchema, TimestampSchema } from './common';
import { NotificationPreferencesSchema, PushDeviceSchema } from './notifications';
import { SelfUserSchema } from './user';

/** What a person types to confirm deleting their account. */
export const DELETE_ACCOUNT_CONFIRMATION = 'DELETE';

export const DeleteAccountBodySchema = z.strictObject({
  confirm: z.literal(DELETE_ACCOUNT_CONFIRMATION, { error: `Type ${DELETE_ACCOUNT_CONFIRMATION} to confirm.` }),
});
export type DeleteAccountBody = z.infer<typeof DeleteAccountBodySchema>;

/**
 * "Download my data": everything stored about the person, as they may see it now. Never a password,
 * token or token hash, never who reported them; other people appear by id and display name only,
 * and by id alone once either has blocked the other.
 */
export const AccountExportSchema = z.object({
  exportedAt: TimestampSchema,
  account: SelfUserSchema.extend({ signUpMethod: z.string() }),
  /** The linked Bluesky identity (docs/bluesky.md), if any. */
  bluesky: z.object({ did: z.string(), handle: z.string().nullable() }).nullable(),
  /** The address the person signs in with by emailed code (docs/auth.md), if any. */
  email: z.string().nullable(),
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
      /** Null once either of the two has blocked the other. */
      otherDisplayName: z.string().nullable(),
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
  /** What the other person wrote in the person's current conversations (live mutual matches). */
  messagesReceived: z.array(
    z.object({
      fromUserId: z.number().int(),
      fromDisplayName: z.string(),
      intent: IntentSchema,
      content: z.string(),
      sentAt: TimestampSchema,
    }),
  ),
  /** Video intros, generated or uploaded, with where the finished video is served. */
  videoProjects: z.array(
    z.object({
      intent: IntentSchema,
      source: z.string(),
      status: z.string(),
      videoUrl: z.string().nullable(),
      posterUrl: z.string().nullable(),
      errorCode: z.string().nullable(),
      createdAt: TimestampSchema,
      updatedAt: TimestampSchema,
    }),
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
  /** Devices that receive push notifications (never their endpoints or keys), and what is pushed. */
  pushDevices: z.array(PushDeviceSchema),
  notificationPreferences: NotificationPreferencesSchema,
});
export type AccountExport = z.infer<typeof AccountExportSchema>;
