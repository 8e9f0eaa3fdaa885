import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/**
 * Precomputed feed: the best-matching people for a user (top K by match %), written by the
 * `matches.recompute` job (docs/matching.md). The feed reads it with one indexed query and filters
 * intent activity, likes/passes, blocks and the minimum match % at read time.
 */
export const FeedCandidateSchema = defineEntity({
  name: 'FeedCandidate',
  tableName: 'feed_candidates',
  properties: {
    // No foreign keys: derived data, rebuilt and swapped in by the full recompute (Migration20261123230000).
    userId: p.integer().fieldName('user_id').primary(),
    candidateId: p.integer().fieldName('candidate_id').primary().index(),
    /** Match % (0-100), symmetric: the row (a, b) and the row (b, a) carry the same value. */
    score: p.smallint(),
    /** The uncalibrated similarity, a tie-break finer than the rounded percentage. */
    raw: p.double(),
    /** Shared visible podcasts, largest contribution first (at most 10). */
    sharedPodcastIds: p.array<number>().columnType('int[]'),
  },
});
export type FeedCandidate = InferEntity<typeof FeedCandidateSchema>;

/** When a user's candidate list was last computed; no row means never (the feed computes on demand). */
export const FeedCandidateRunSchema = defineEntity({
  name: 'FeedCandidateRun',
  tableName: 'feed_candidate_runs',
  properties: {
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('cascade').primary(),
    computedAt: p.datetime(),
  },
});
export type FeedCandidateRun = InferEntity<typeof FeedCandidateRunSchema>;
