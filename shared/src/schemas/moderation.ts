// Trust and safety (docs/moderation.md): the moderation queue, the actions moderators take with
// their reasons, the statements of reasons people receive, appeals, the audit log and the counts
// of the transparency report.
import { z } from 'zod';
import { IdSchema, TimestampSchema } from './common';
import { REPORT_REASONS } from './matches';

export { ROLES, type Role } from './roles';

/** What a moderator can do to a person (docs/moderation.md, "Actions"). */
export const MODERATION_ACTIONS = ['dismiss', 'warn', 'hide', 'suspend', 'ban', 'undo', 'escalate'] as const;
export type ModerationActionKind = (typeof MODERATION_ACTIONS)[number];

/** Every event of a subject's history: the actions, and what the system and appeals did. */
export const MODERATION_EVENT_KINDS = [...MODERATION_ACTIONS, 'autoHide', 'appealUpheld', 'appealReversed'] as const;
export type ModerationEventKind = (typeof MODERATION_EVENT_KINDS)[number];

/** Actions that count as a strike against the person (while not undone or reversed). */
export const STRIKE_ACTIONS = ['warn', 'hide', 'suspend', 'ban'] as const satisfies readonly ModerationActionKind[];
/** How long a strike counts (days). */
export const STRIKE_PERIOD_DAYS = 90;
/** Distinct reporters within a day that hide a person from new feeds until a moderator decides. */
export const AUTO_HIDE_REPORTERS = 3;

/** The community rules an action can cite (docs/moderation.md, "Rules"). */
export const COMMUNITY_RULES = {
  respect: 'Treat people with respect: no harassment, threats or hate.',
  consent: 'No sexual content or advances the other person did not ask for.',
  authenticity: 'Be yourself: no fake profiles, impersonation or catfishing.',
  spam: 'No spam, scams, advertising or links to elsewhere for money.',
  safety: 'Nothing that puts anyone in danger, including yourself.',
} as const;
export type CommunityRule = keyof typeof COMMUNITY_RULES;
export const COMMUNITY_RULE_KEYS = Object.keys(COMMUNITY_RULES) as [CommunityRule, ...CommunityRule[]];

export const QUEUE_STATES = ['open', 'escalated', 'closed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export const MODERATION_TEXTS = {
  claimedByOther: 'Another moderator is handling this person. Pick someone else from the queue.',
  notClaimedByYou: 'Claim this person first, so that nobody else acts on them at the same time.',
  nothingToUndo: 'There is no action in force to undo.',
  ownAppeal: 'You took the action this appeal is about; another moderator decides it.',
  appealDecided: 'This appeal has already been decided.',
  alreadyAppealed: 'You have already appealed this decision.',
  notAppealable: 'This decision cannot be appealed.',
  appealExpired: 'This appeal link has expired. Sign in again to appeal.',
  suspendDays: 'Choose how many days the suspension lasts (1 to 365).',
  escalated: 'Escalated to an admin.',
} as const;

/** How a person stands right now: what is in force against them. */
export const StandingSchema = z.object({
  /** Hidden from new feeds (by a moderator, an automatic hide, a suspension or a ban). */
  hiddenFromFeeds: z.boolean(),
  /** Set while suspended (a ban: null with `banned`). */
  suspendedUntil: TimestampSchema.nullable(),
  banned: z.boolean(),
  /** Hidden automatically after several people reported them, until a moderator decides. */
  autoHidden: z.boolean(),
});
export type Standing = z.infer<typeof StandingSchema>;

const ModeratorRefSchema = z.object({ id: IdSchema, username: z.string() });

/** One person in the queue: their open reports, grouped. */
export const QueueSubjectSchema = z.object({
  subjectId: IdSchema,
  /** Their display name now, or when last reported if the account is gone. */
  displayName: z.string(),
  accountDeleted: z.boolean(),
  state: z.enum(QUEUE_STATES),
  /** Distinct people who reported them (open reports). */
  reporterCount: z.number().int(),
  reasons: z.array(z.object({ reason: z.enum(REPORT_REASONS), count: z.number().int() })),
  latestReportAt: TimestampSchema,
  claimedBy: ModeratorRefSchema.nullable(),
  standing: StandingSchema,
  strikes: z.number().int(),
});
export type QueueSubject = z.infer<typeof QueueSubjectSchema>;

export const QueueQuerySchema = z.strictObject({
  state: z.enum(QUEUE_STATES).default('open'),
  reason: z.enum(REPORT_REASONS).optional(),
});

/** The reported person's profile as others saw it when the report was made. */
export const ProfileSnapshotSchema = z.object({
  displayName: z.string(),
  tagline: z.string().nullable(),
  profilePicture: z.string().nullable(),
  intent: z.string().nullable(),
});
export type ProfileSnapshot = z.infer<typeof ProfileSnapshotSchema>;

export const ReportedMessageSchema = z.object({ seq: z.number().int(), content: z.string(), sentAt: TimestampSchema });

export const SubjectReportSchema = z.object({
  id: IdSchema,
  reason: z.enum(REPORT_REASONS),
  details: z.string().nullable(),
  createdAt: TimestampSchema,
  open: z.boolean(),
  /** Visible to moderators only; null once the reporter deleted their account. */
  reporter: z.object({ id: IdSchema, username: z.string(), displayName: z.string() }).nullable(),
  profile: ProfileSnapshotSchema.nullable(),
  messages: z.array(ReportedMessageSchema),
});

/** One entry of a subject's history (and of the audit log). */
export const ModerationEventSchema = z.object({
  id: IdSchema,
  subjectId: IdSchema,
  /** The person's display name now, or as last reported once the account is gone. */
  subjectName: z.string(),
  kind: z.enum(MODERATION_EVENT_KINDS),
  /** Null for what the system did (an automatic hide). */
  moderator: ModeratorRefSchema.nullable(),
  reason: z.enum(REPORT_REASONS),
  rule: z.enum(COMMUNITY_RULE_KEYS).nullable(),
  explanation: z.string(),
  endsAt: TimestampSchema.nullable(),
  createdAt: TimestampSchema,
});
export type ModerationEvent = z.infer<typeof ModerationEventSchema>;

export const AppealSchema = z.object({
  id: IdSchema,
  actionId: IdSchema,
  subjectId: IdSchema,
  text: z.string(),
  state: z.enum(['open', 'upheld', 'reversed']),
  createdAt: TimestampSchema,
  decidedAt: TimestampSchema.nullable(),
  action: ModerationEventSchema,
});
export type Appeal = z.infer<typeof AppealSchema>;

export const SubjectDetailSchema = z.object({
  subject: QueueSubjectSchema.extend({ username: z.string().nullable() }),
  reports: z.array(SubjectReportSchema),
  events: z.array(ModerationEventSchema),
  appeals: z.array(AppealSchema),
  /** The next step repeated strikes suggest (docs/moderation.md, "Strikes"). */
  suggestion: z.enum(['warn', 'hide', 'suspend', 'ban']),
});
export type SubjectDetail = z.infer<typeof SubjectDetailSchema>;

export const SubjectIdParams = z.strictObject({ subjectId: IdSchema });
export const AppealIdParams = z.strictObject({ appealId: IdSchema });

const ExplanationSchema = z
  .string()
  .trim()
  .min(10, 'Say why in a sentence the person will read (at least 10 characters).')
  .max(1000);

export const ModerationActionBodySchema = z.strictObject({
  kind: z.enum(MODERATION_ACTIONS),
  reason: z.enum(REPORT_REASONS),
  rule: z.enum(COMMUNITY_RULE_KEYS),
  explanation: ExplanationSchema,
  /** Suspensions only: how many days. */
  days: z.number().int().min(1).max(365).optional(),
});
export type ModerationActionBody = z.infer<typeof ModerationActionBodySchema>;

export const ActionResultSchema = z.object({ event: ModerationEventSchema, subject: QueueSubjectSchema });

export const AppealDecisionBodySchema = z.strictObject({
  outcome: z.enum(['upheld', 'reversed']),
  explanation: ExplanationSchema,
});

const AppealTextSchema = z.string().trim().min(10, 'Tell us why in a few words (at least 10 characters).').max(2000);

export const AppealBodySchema = z.strictObject({ actionId: IdSchema, text: AppealTextSchema });
/** An appeal from someone who cannot sign in (suspended): the token their refused sign-in gave them. */
export const SuspendedAppealBodySchema = z.strictObject({
  token: z.string().min(20).max(100),
  text: AppealTextSchema,
});

/** A statement of reasons (what, why, which rule, how long, how to appeal), or an appeal's outcome. */
export const NoticeSchema = z.object({
  id: IdSchema,
  kind: z.enum(['action', 'appealOutcome']),
  action: z.object({
    id: IdSchema,
    kind: z.enum(MODERATION_EVENT_KINDS),
    reason: z.enum(REPORT_REASONS),
    rule: z.enum(COMMUNITY_RULE_KEYS).nullable(),
    ruleText: z.string().nullable(),
    explanation: z.string(),
    endsAt: TimestampSchema.nullable(),
    createdAt: TimestampSchema,
  }),
  /** For an appeal outcome: what was decided and why. */
  appeal: z.object({ state: z.enum(['open', 'upheld', 'reversed']), explanation: z.string().nullable() }).nullable(),
  canAppeal: z.boolean(),
  createdAt: TimestampSchema,
});
export type Notice = z.infer<typeof NoticeSchema>;

export const NoticeIdParams = z.strictObject({ userId: IdSchema, noticeId: IdSchema });

/** The body of a sign-in refused because the account is suspended or banned (403 `suspended`). */
export const SuspendedErrorSchema = z.object({
  error: z.literal('suspended'),
  message: z.string(),
  until: TimestampSchema.nullable(),
  notice: NoticeSchema,
  /** Lets the person appeal without a session, for an hour. */
  appealToken: z.string().nullable(),
});
export type SuspendedError = z.infer<typeof SuspendedErrorSchema>;

export const AuditLogQuerySchema = z.strictObject({ before: IdSchema.optional() });

export const TransparencyQuerySchema = z.strictObject({
  from: z.iso.date().optional(),
  to: z.iso.date().optional(),
});

export const TransparencyReportSchema = z.object({
  from: z.string(),
  to: z.string(),
  reportsByReason: z.record(z.string(), z.number().int()),
  actionsByKind: z.record(z.string(), z.number().int()),
  /** Median hours from a person's first open report to the action that closed it; null without any. */
  medianHoursToAction: z.number().nullable(),
  appeals: z.object({
    received: z.number().int(),
    upheld: z.number().int(),
    reversed: z.number().int(),
    open: z.number().int(),
  }),
  automaticHides: z.number().int(),
});
export type TransparencyReport = z.infer<typeof TransparencyReportSchema>;
