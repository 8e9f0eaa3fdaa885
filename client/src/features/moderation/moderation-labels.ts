import type {
  CommunityRule,
  ModerationActionKind,
  ModerationEventKind,
  QueueState,
  Standing,
} from '@shared/schemas/moderation';

// Words for the moderators' screens (docs/moderation.md).

/** The action form's choices. */
export const ACTION_LABELS: Record<ModerationActionKind, string> = {
  warn: 'Warn',
  hide: 'Hide from feeds',
  suspend: 'Suspend',
  ban: 'Ban',
  dismiss: 'Dismiss',
  undo: 'Undo',
  escalate: 'Escalate',
};

/** What each action does, under the form's choices. */
export const ACTION_HINTS: Record<ModerationActionKind, string> = {
  warn: 'They see the warning next time they open the app. Counts as a strike.',
  hide: 'No new matches; their existing chats continue. Counts as a strike.',
  suspend: 'Sign-in refused until the end date; their sessions end now and they leave every feed and match list.',
  ban: 'Permanent. Their pictures and videos stop being served. Counts as a strike.',
  dismiss: 'The reports were not a problem: they close without a step against the person.',
  undo: 'Reverses the action in force and the strike it counted.',
  escalate: 'An admin decides.',
};

/** A history entry, in the past tense. */
export const EVENT_LABELS: Record<ModerationEventKind, string> = {
  dismiss: 'Dismissed',
  warn: 'Warned',
  hide: 'Hidden from feeds',
  suspend: 'Suspended',
  ban: 'Banned',
  undo: 'Undone',
  escalate: 'Escalated',
  autoHide: 'Hidden automatically',
  appealUpheld: 'Appeal upheld',
  appealReversed: 'Appeal reversed',
};

export const STATE_LABELS: Record<QueueState, string> = {
  open: 'Open',
  escalated: 'Escalated',
  closed: 'Closed',
};

export const RULE_LABELS: Record<CommunityRule, string> = {
  respect: 'Respect',
  consent: 'Consent',
  authenticity: 'Authenticity',
  spam: 'No spam',
  safety: 'Safety',
};

/** The badges of what is in force against a person. */
export function standingBadges(standing: Standing): string[] {
  const badges: string[] = [];
  if (standing.banned) badges.push('Banned');
  else if (standing.suspendedUntil) badges.push('Suspended');
  if (standing.autoHidden) badges.push('Auto-hidden');
  else if (standing.hiddenFromFeeds && !standing.banned && !standing.suspendedUntil) badges.push('Hidden');
  return badges;
}
