import { z } from 'zod';
import { OkResponseSchema } from '../schemas/auth';
import {
  ActionResultSchema,
  AppealBodySchema,
  AppealDecisionBodySchema,
  AppealIdParams,
  AppealSchema,
  AuditLogQuerySchema,
  ModerationActionBodySchema,
  ModerationEventSchema,
  NoticeIdParams,
  NoticeSchema,
  QueueQuerySchema,
  QueueSubjectSchema,
  SubjectDetailSchema,
  SubjectIdParams,
  SuspendedAppealBodySchema,
  TransparencyQuerySchema,
  TransparencyReportSchema,
} from '../schemas/moderation';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

const moderation = { name: 'moderation', per: 'person' } as const;

/**
 * Trust and safety (docs/moderation.md). Moderator routes answer 404 to everyone without the role,
 * admin routes to everyone without that one; people read their own statements of reasons and appeal.
 */
export const moderationApi = {
  moderationQueue: defineEndpoint({
    method: 'GET',
    path: '/api/moderation/queue',
    access: 'moderator',
    rateLimit: moderation,
    query: QueueQuerySchema,
    response: z.object({ subjects: z.array(QueueSubjectSchema) }),
  }),
  moderationSubject: defineEndpoint({
    method: 'GET',
    path: '/api/moderation/subjects/:subjectId',
    access: 'moderator',
    rateLimit: moderation,
    params: SubjectIdParams,
    response: SubjectDetailSchema,
  }),
  moderationClaim: defineEndpoint({
    method: 'POST',
    path: '/api/moderation/subjects/:subjectId/claim',
    access: 'moderator',
    rateLimit: moderation,
    params: SubjectIdParams,
    response: QueueSubjectSchema,
  }),
  moderationRelease: defineEndpoint({
    method: 'DELETE',
    path: '/api/moderation/subjects/:subjectId/claim',
    access: 'moderator',
    rateLimit: moderation,
    params: SubjectIdParams,
    response: OkResponseSchema,
  }),
  moderationAct: defineEndpoint({
    method: 'POST',
    path: '/api/moderation/subjects/:subjectId/actions',
    access: 'moderator',
    rateLimit: moderation,
    params: SubjectIdParams,
    body: ModerationActionBodySchema,
    response: ActionResultSchema,
    status: 201,
  }),
  moderationAppeals: defineEndpoint({
    method: 'GET',
    path: '/api/moderation/appeals',
    access: 'moderator',
    rateLimit: moderation,
    response: z.object({ appeals: z.array(AppealSchema) }),
  }),
  moderationDecideAppeal: defineEndpoint({
    method: 'POST',
    path: '/api/moderation/appeals/:appealId',
    access: 'moderator',
    rateLimit: moderation,
    params: AppealIdParams,
    body: AppealDecisionBodySchema,
    response: AppealSchema,
  }),
  adminAuditLog: defineEndpoint({
    method: 'GET',
    path: '/api/admin/audit-log',
    access: 'admin',
    rateLimit: moderation,
    query: AuditLogQuerySchema,
    response: z.object({ events: z.array(ModerationEventSchema), nextBefore: z.number().int().nullable() }),
  }),
  adminTransparency: defineEndpoint({
    method: 'GET',
    path: '/api/admin/transparency',
    access: 'admin',
    rateLimit: moderation,
    query: TransparencyQuerySchema,
    response: TransparencyReportSchema,
  }),
  myNotices: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/notices',
    access: 'owner',
    params: UserIdParams,
    response: z.object({ notices: z.array(NoticeSchema) }),
  }),
  noticeSeen: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/notices/:noticeId/seen',
    access: 'owner',
    params: NoticeIdParams,
    response: OkResponseSchema,
  }),
  appealAction: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/appeals',
    access: 'owner',
    rateLimit: { name: 'appeals' },
    params: UserIdParams,
    body: AppealBodySchema,
    response: OkResponseSchema,
    status: 201,
  }),
  appealWhileSuspended: defineEndpoint({
    method: 'POST',
    path: '/api/appeals',
    access: 'public',
    rateLimit: { name: 'appeals' },
    body: SuspendedAppealBodySchema,
    response: OkResponseSchema,
    status: 201,
  }),
} as const;
