import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { REPORT_REASONS } from '@shared/index';
import { MatchSchema } from './match.entity';
import { UserSchema } from './user.entity';

/** A user's report about another user, kept for moderation (docs/matches.md); one per pair and direction. */
export const ReportSchema = defineEntity({
  name: 'Report',
  tableName: 'reports',
  properties: {
    id: p.integer().primary().autoincrement(),
    reporterId: p.manyToOne(UserSchema).mapToPk().fieldName('reporter_id').deleteRule('cascade').index(),
    reportedId: p.manyToOne(UserSchema).mapToPk().fieldName('reported_id').deleteRule('cascade').index(),
    matchId: p.manyToOne(MatchSchema).mapToPk().fieldName('match_id').deleteRule('set null').nullable(),
    reason: p.enum([...REPORT_REASONS]),
    details: p.string().length(1000).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['reporterId', 'reportedId'] }],
});
export type Report = InferEntity<typeof ReportSchema>;
