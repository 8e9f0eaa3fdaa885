import { z } from 'zod';
import { IdSchema, IntentSchema, TimestampSchema } from './common';
import { FeedSharedPodcastSchema } from './feed';
import { PublicUserSchema } from './user';

/** Why a person reports another (stored with the report). */
export const REPORT_REASONS = ['spam', 'harassment', 'inappropriate', 'fake_profile', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const MatchesQuerySchema = z.object({ intent: IntentSchema.optional() });

export const MatchIdParamsSchema = z.strictObject({ matchId: IdSchema });
export const UserMatchParamsSchema = z.strictObject({ userId: IdSchema, matchId: IdSchema });

/** SPEC section 7, POST /api/matches. The caller must be user1Id; the server ignores matchPercentage. */
export const CreateMatchBodySchema = z.strictObject({
  user1Id: z.number().int().positive(),
  user2Id: z.number().int().positive(),
  intent: IntentSchema,
  user1Liked: z.boolean(),
  user2Liked: z.boolean().optional(),
  matchPercentage: z.number().optional(),
});
export type CreateMatchBody = z.infer<typeof CreateMatchBodySchema>;

/** SPEC section 3, matches, as the viewer sees it: user1Id is always the viewer. */
export const MatchViewSchema = z.object({
  id: z.number().int(),
  user1Id: z.number().int(),
  user2Id: z.number().int(),
  intent: IntentSchema,
  matchPercentage: z.number().int().min(0).max(100),
  user1Liked: z.boolean(),
  user2Liked: z.boolean(),
  createdAt: TimestampSchema,
  isMutualMatch: z.boolean(),
  isFavorite: z.boolean(),
  /** A mutual match never opened, or with messages from the other person the viewer has not read. */
  hasUnreadMessages: z.boolean(),
  matchedUser: PublicUserSchema,
  /** Shows both people list visibly (hidden ones never), the ones that drive the match first; at most 10. */
  sharedPodcasts: z.array(FeedSharedPodcastSchema),
  /** How many shows both people list visibly (may exceed sharedPodcasts.length). */
  sharedPodcastCount: z.number().int().min(0),
  /** The seq of the match's newest message (0: none yet). */
  lastMessageSeq: z.number().int().min(0),
  /** Up to which seq the viewer has read, and the other person (read receipts). */
  readSeq: z.number().int().min(0),
  otherReadSeq: z.number().int().min(0),
});
export type MatchView = z.infer<typeof MatchViewSchema>;

export const MatchListSchema = z.array(MatchViewSchema);

export const CreateMatchResponseSchema = MatchViewSchema;

export const UpdateMatchBodySchema = z.strictObject({ isFavorite: z.boolean() });

export const BlockBodySchema = z.strictObject({ userId: z.number().int().positive() });

export const ReportBodySchema = z.strictObject({
  reportedId: z.number().int().positive(),
  matchId: z.number().int().positive().optional(),
  reason: z.enum(REPORT_REASONS),
  details: z.string().trim().max(1000).optional(),
});
export type ReportBody = z.infer<typeof ReportBodySchema>;
