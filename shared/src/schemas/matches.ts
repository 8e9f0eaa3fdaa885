import { z } from 'zod';
import { IdSchema, IntentSchema, PAGE_SIZES, pageQuerySchema, TimestampSchema } from './common';
import { FeedSharedPodcastSchema } from './feed';
import { PublicUserSchema } from './user';

/** Why a person reports another (stored with the report). */
export const REPORT_REASONS = ['spam', 'harassment', 'inappropriate', 'fake_profile', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/**
 * SPEC section 4's one demo user ("id 82, or the username ..."): the seeded demo person whose like
 * back is instant (the like answers with a mutual match and the app opens Matches). Every other
 * demo person answers later, like a person would (docs/matches.md, "Demo people").
 */
export const SPEC_DEMO_USERNAME = 'demo.maya';

/** How long after a pass its undo is offered (UNDO_PASS_SECONDS on screen; the server allows a little more). */
export const UNDO_PASS_SECONDS = 6;
export const UNDO_PASS_SERVER_WINDOW_SECONDS = 60;

export const MatchesQuerySchema = z
  .object({ intent: IntentSchema.optional() })
  .extend(pageQuerySchema(PAGE_SIZES.matches, PAGE_SIZES.matches * 2).shape);

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

/** A match's newest message, for the Matches list (who wrote it, the start of it, when). */
export const LastMessageSchema = z.object({
  senderId: z.number().int(),
  /** At most LAST_MESSAGE_PREVIEW_LENGTH characters of it. */
  text: z.string(),
  createdAt: TimestampSchema,
});
export type LastMessage = z.infer<typeof LastMessageSchema>;
export const LAST_MESSAGE_PREVIEW_LENGTH = 120;

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
  /** The newest message (null: none yet). */
  lastMessage: LastMessageSchema.nullable(),
  /** Up to which seq the viewer has read, and the other person (read receipts). */
  readSeq: z.number().int().min(0),
  otherReadSeq: z.number().int().min(0),
});
export type MatchView = z.infer<typeof MatchViewSchema>;

export const MatchListSchema = z.array(MatchViewSchema);

/**
 * The like's answer. `instantDemoMatch`: the like was on SPEC's demo user (SPEC_DEMO_USERNAME), whose
 * match is instant and after which the app opens Matches (SPEC section 4); false for everyone else.
 */
export const CreateMatchResponseSchema = MatchViewSchema.extend({ instantDemoMatch: z.boolean() });
export type CreateMatchResponse = z.infer<typeof CreateMatchResponseSchema>;

/** Takes back the caller's most recent pass, on `userId` in `intent` (docs/matches.md, "Undo"). */
export const UndoPassBodySchema = z.strictObject({
  userId: z.number().int().positive(),
  intent: IntentSchema,
});
export type UndoPassBody = z.infer<typeof UndoPassBodySchema>;

export const UpdateMatchBodySchema = z.strictObject({ isFavorite: z.boolean() });

export const BlockBodySchema = z.strictObject({ userId: z.number().int().positive() });

export const ReportBodySchema = z.strictObject({
  reportedId: z.number().int().positive(),
  matchId: z.number().int().positive().optional(),
  reason: z.enum(REPORT_REASONS),
  details: z.string().trim().max(1000).optional(),
});
export type ReportBody = z.infer<typeof ReportBodySchema>;
