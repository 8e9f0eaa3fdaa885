import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * Each person's taste neighbourhood: the people closest by shared shows and their weights
 * (docs/matching.md). Derived data like feed_candidates: no foreign key, rebuilt and swapped in
 * wholesale by the full recompute (core/matching/full-recompute.ts).
 */
export const TasteNeighbourSchema = defineEntity({
  name: 'TasteNeighbour',
  tableName: 'taste_neighbours',
  properties: {
    userId: p.integer().fieldName('user_id').primary().autoincrement(false),
    ids: p.array<number>().columnType('int[]'),
    weights: p.array<number>().columnType('float8[]'),
  },
});
export type TasteNeighbour = InferEntity<typeof TasteNeighbourSchema>;

/**
 * The one current matching model (listener counts per show, population) that every stored score
 * was computed with, and how long the last full recompute took (core/matching/model.ts).
 */
export const MatchingModelSchema = defineEntity({
  name: 'MatchingModel',
  tableName: 'matching_model',
  properties: {
    /** Always 1: one row (a check constraint). */
    id: p.smallint().primary().autoincrement(false).default(1),
    version: p.integer(),
    users: p.integer(),
    /** `library_changes` when the libraries were read. */
    changeSeq: p.bigint('string'),
    snapshotAt: p.datetime(),
    finishedAt: p.datetime(),
    durationMs: p.integer(),
    /** Int32 arrays, little-endian: the shows, and each one's listener count. */
    podcastIds: p.blob(),
    listeners: p.blob(),
  },
  checks: [{ name: 'matching_model_id_check', expression: 'id = 1' }],
});
export type MatchingModel = InferEntity<typeof MatchingModelSchema>;
