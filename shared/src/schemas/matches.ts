import { z } from 'zod';
import { IdSchema, IntentSchema, TimestampSchema } from './common';
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
  hasUnreadMessages: z.boolean(),
  matchedUser: PublicUserSchema,
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
