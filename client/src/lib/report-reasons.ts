import type { ReportReason } from '@shared/schemas/matches';

/** A report reason in words: the report dialog, the moderation queue and the statements of reasons. */
export const REPORT_REASON_LABELS: Record<ReportReason, string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  fake_profile: 'Fake profile',
  other: 'Something else',
};
