import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { REPORT_REASONS } from '@shared/index';
import { MatchSchema } from './match.entity';
import { UserSchema } from './user.entity';

/**
 * A user's report about another user, kept for moderation (docs/matches.md); one per pair and
 * direction. It outlives either side's account (docs/privacy.md, "Reports"): the reported person's
 * id is a plain column with their display name at the time, and a deleted reporter becomes null.
 */
export const ReportSchema = defineEntity({
  name: 'Report',
  tableName: 'reports',
  properties: {
    id: p.integer().primary().autoincrement(),
    reporterId: p.manyToOne(UserSchema).mapToPk().fieldName('reporter_id').deleteRule('set null').nullable().index(),
    reportedId: p.integer().fieldName('reported_id').index(),
    reportedDisplayName: p.string().fieldName('reported_display_name'),
    matchId: p.manyToOne(MatchSchema).mapToPk().fieldName('match_id').deleteRule('set null').nullable(),
    reason: p.enum([...REPORT_REASONS]),
    details: p.string().length(1000).nullable(),
    /** The reported person's profile as the reporter saw it (shared ProfileSnapshot). */
    reportedProfile: p.json<Record<string, unknown>>().nullable(),
    /** When a moderator's decision closed it (null: open, in the queue). */
    closedAt: p.datetime().nullable(),
    createdAt: p
      .datetime()
      .onCreate(() => new Date())
      .index(),
  },
  uniques: [{ name: 'reports_reporter_reported_unique', properties: ['reporterId', 'reportedId'] }],
  // The moderation queue reads open reports by person.
  indexes: [
    {
      name: 'reports_open_reported_index',
      expression: 'create index "reports_open_reported_index" on "reports" ("reported_id") where "closed_at" is null',
    },
  ],
});
export type Report = InferEntity<typeof ReportSchema>;

/** The reported person's messages in the reported match, as they were when the report was made. */
export const ReportMessageSchema = defineEntity({
  name: 'ReportMessage',
  tableName: 'report_messages',
  properties: {
    id: p.integer().primary().autoincrement(),
    reportId: p.manyToOne(ReportSchema).mapToPk().fieldName('report_id').deleteRule('cascade').index(),
    seq: p.integer(),
    content: p.text(),
    sentAt: p.datetime().fieldName('sent_at'),
  },
});
export type ReportMessage = InferEntity<typeof ReportMessageSchema>;
