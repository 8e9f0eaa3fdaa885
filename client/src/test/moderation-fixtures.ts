import type { Notice, QueueSubject, SubjectDetail } from '@shared/schemas/moderation';

// Moderation answers that pass the shared schemas; override what a test cares about.

export function makeNotice(
  overrides: Omit<Partial<Notice>, 'action'> & { action?: Partial<Notice['action']> } = {},
): Notice {
  const { action, ...rest } = overrides;
  return {
    id: 31,
    kind: 'action',
    action: {
      id: 501,
      kind: 'suspend',
      reason: 'harassment',
      rule: 'respect',
      ruleText: 'Treat people with respect: no harassment, threats or hate.',
      explanation: 'You sent threatening messages to another person.',
      endsAt: '2026-12-04T10:00:00.000Z',
      createdAt: '2026-11-27T10:00:00.000Z',
      ...action,
    },
    appeal: null,
    canAppeal: true,
    createdAt: '2026-11-27T10:00:00.000Z',
    ...rest,
  };
}

export function makeQueueSubject(overrides: Partial<QueueSubject> = {}): QueueSubject {
  return {
    subjectId: 12,
    displayName: 'Harry Asser',
    accountDeleted: false,
    state: 'open',
    reporterCount: 1,
    reasons: [{ reason: 'harassment', count: 1 }],
    latestReportAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    claimedBy: null,
    standing: { hiddenFromFeeds: false, suspendedUntil: null, banned: false, autoHidden: false },
    strikes: 0,
    ...overrides,
  };
}

export function makeSubjectDetail(
  overrides: Partial<Omit<SubjectDetail, 'subject'>> & { subject?: Partial<SubjectDetail['subject']> } = {},
): SubjectDetail {
  const { subject, ...rest } = overrides;
  return {
    subject: { ...makeQueueSubject(), username: 'harry', ...subject },
    reports: [
      {
        id: 81,
        reason: 'harassment',
        details: 'He would not stop.',
        createdAt: '2026-11-27T09:00:00.000Z',
        open: true,
        reporter: { id: 40, username: 'vicky', displayName: 'Vicky' },
        profile: { displayName: 'Harry Asser', tagline: 'Loves true crime', profilePicture: null, intent: 'romantic' },
        messages: [
          { seq: 1, content: 'answer me', sentAt: '2026-11-27T08:50:00.000Z' },
          { seq: 2, content: 'I know where you live', sentAt: '2026-11-27T08:51:00.000Z' },
        ],
      },
    ],
    events: [],
    appeals: [],
    suggestion: 'warn',
    ...rest,
  };
}
