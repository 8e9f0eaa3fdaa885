import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { INTENTS } from '@shared/index';
import { UserSchema } from './user.entity';

/**
 * One row per unordered pair per intent (SPEC section 3, matches). user1Id is always the smaller
 * id, enforced by a check constraint, so the unique key makes concurrent likes meet in one row.
 */
export const MatchSchema = defineEntity({
  name: 'Match',
  tableName: 'matches',
  properties: {
    id: p.integer().primary().autoincrement(),
    user1Id: p.manyToOne(UserSchema).mapToPk().fieldName('user1_id').deleteRule('cascade'),
    user2Id: p.manyToOne(UserSchema).mapToPk().fieldName('user2_id').deleteRule('cascade').index(),
    intent: p.enum([...INTENTS]),
    matchPercentage: p.integer().default(0),
    user1Liked: p.boolean().default(false).fieldName('user1_liked'),
    user2Liked: p.boolean().default(false).fieldName('user2_liked'),
    /** Whether each side has acted (liked or passed) in this intent; a pass leaves liked false. */
    user1Acted: p.boolean().default(false).fieldName('user1_acted'),
    user2Acted: p.boolean().default(false).fieldName('user2_acted'),
    /** Per-user favourite flags: each person marks favourites for themselves only. */
    user1Favorite: p.boolean().default(false).fieldName('user1_favorite'),
    user2Favorite: p.boolean().default(false).fieldName('user2_favorite'),
    /** When each person last opened the mutual match; null means unread for that person. */
    user1SeenAt: p.datetime().nullable().fieldName('user1_seen_at'),
    user2SeenAt: p.datetime().nullable().fieldName('user2_seen_at'),
    /** Set once, by the like that made the pair mutual (docs/matches.md). */
    mutualAt: p.datetime().nullable(),
    /** An unmatched pair stays out of both people's feed and matches for this intent. */
    unmatchedAt: p.datetime().nullable(),
    /** The seq of the newest message; each send increments it under this row's lock. */
    lastMessageSeq: p.integer().default(0),
    /** Up to which message seq each person has read (read receipts, unread marks). */
    user1ReadSeq: p.integer().default(0).fieldName('user1_read_seq'),
    user2ReadSeq: p.integer().default(0).fieldName('user2_read_seq'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['user1Id', 'user2Id', 'intent'] }],
  checks: [{ name: 'matches_ordered_pair', expression: 'user1_id < user2_id' }],
});
export type Match = InferEntity<typeof MatchSchema>;
