import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { COMMUNITY_RULE_KEYS, MODERATION_EVENT_KINDS, REPORT_REASONS } from '@shared/index';
import { UserSchema } from './user.entity';

/**
 * One entry of a person's moderation history and of the audit log (docs/moderation.md): who did
 * what, when, why, citing which rule. Append-only: a trigger refuses every update, and deletes
 * outside the retention purge. The subject and the moderator are plain ids (with the moderator's
 * username at the time), so the history outlives either account.
 */
export const ModerationEventSchema = defineEntity({
  name: 'ModerationEvent',
  tableName: 'moderation_events',
  properties: {
    id: p.integer().primary().autoincrement(),
    subjectId: p.integer().index(),
    /** Null for what the system did (an automatic hide). */
    moderatorId: p.integer().nullable(),
    moderatorUsername: p.string().nullable(),
    kind: p.enum([...MODERATION_EVENT_KINDS]),
    reason: p.enum([...REPORT_REASONS]),
    rule: p.enum([...COMMUNITY_RULE_KEYS]).nullable(),
    explanation: p.text(),
    /** A suspension's end. */
    endsAt: p.datetime().nullable(),
    /** An undo or a reversed appeal: the action it takes back. */
    reversesId: p.integer().nullable(),
    createdAt: p
      .datetime()
      .onCreate(() => new Date())
      .index(),
  },
});
export type ModerationEvent = InferEntity<typeof ModerationEventSchema>;

/** The moderator working on a person now, so that two do not act on them at once. */
export const ModerationClaimSchema = defineEntity({
  name: 'ModerationClaim',
  tableName: 'moderation_claims',
  properties: {
    subjectId: p.integer().primary().autoincrement(false),
    moderatorId: p.manyToOne(UserSchema).mapToPk().fieldName('moderator_id').deleteRule('cascade').index(),
    claimedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ModerationClaim = InferEntity<typeof ModerationClaimSchema>;

export const APPEAL_STATES = ['open', 'upheld', 'reversed'] as const;

/** A person's appeal of an action (once per action), decided by another moderator. */
export const AppealSchema = defineEntity({
  name: 'Appeal',
  tableName: 'appeals',
  properties: {
    id: p.integer().primary().autoincrement(),
    eventId: p.manyToOne(ModerationEventSchema).mapToPk().fieldName('event_id').unique(),
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('set null').nullable().index(),
    text: p.string().length(2000),
    state: p.enum([...APPEAL_STATES]).default('open'),
    decidedBy: p.integer().nullable(),
    decisionEventId: p.integer().nullable(),
    decisionExplanation: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    decidedAt: p.datetime().nullable(),
  },
});
export type Appeal = InferEntity<typeof AppealSchema>;

export const NOTICE_KINDS = ['action', 'appealOutcome'] as const;

/** What the person is told in the app: a statement of reasons, or the outcome of their appeal. */
export const ModerationNoticeSchema = defineEntity({
  name: 'ModerationNotice',
  tableName: 'moderation_notices',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('cascade').index(),
    eventId: p.manyToOne(ModerationEventSchema).mapToPk().fieldName('event_id'),
    kind: p.enum([...NOTICE_KINDS]),
    appealId: p.manyToOne(AppealSchema).mapToPk().fieldName('appeal_id').deleteRule('cascade').nullable(),
    seenAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ModerationNotice = InferEntity<typeof ModerationNoticeSchema>;
