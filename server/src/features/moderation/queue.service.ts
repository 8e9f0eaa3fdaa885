// The moderation queue (docs/moderation.md, "The queue"): reports grouped by the person reported,
// most-reported and newest first, and one person's whole file: the reports with their reporters,
// the profile and messages as they were when reported, the history of actions, appeals and strikes.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type Appeal,
  type CommunityRule,
  type ModerationEvent,
  type QueueState,
  type QueueSubject,
  REPORT_REASONS,
  type ReportReason,
  STRIKE_PERIOD_DAYS,
  type SubjectDetail,
} from '@shared/index';
import { sql } from '../../core/db/sql';
import { STRIKE_KINDS_SQL, subjectNameOf } from '../../core/moderation/standing';
import { notFound } from '../../http/errors';

/** An ISO timestamp of a row's date, or null. */
export const iso = (value: Date | string | null) => (value == null ? null : new Date(value).toISOString());
const QUEUE_SIZE = 100;

/** A moderation event's columns with the person's name (`e` is moderation_events). */
export const EVENT_COLUMNS = `e.*, ${subjectNameOf('e')} as subject_name`;

export interface EventRow {
  id: number;
  subject_id: number;
  subject_name?: string;
  moderator_id: number | null;
  moderator_username: string | null;
  kind: ModerationEvent['kind'];
  reason: ReportReason;
  rule: CommunityRule | null;
  explanation: string;
  ends_at: string | null;
  created_at: string;
}

export const toEvent = (row: EventRow): ModerationEvent => ({
  id: row.id,
  subjectId: row.subject_id,
  subjectName: row.subject_name ?? 'Deleted account',
  kind: row.kind,
  moderator:
    row.moderator_id !== null ? { id: row.moderator_id, username: row.moderator_username ?? 'moderator' } : null,
  reason: row.reason,
  rule: row.rule,
  explanation: row.explanation,
  endsAt: iso(row.ends_at),
  createdAt: iso(row.created_at) as string,
});

interface SubjectRow {
  subject_id: number;
  display_name: string;
  account_deleted: boolean;
  reporter_count: number;
  reasons: Record<string, number> | null;
  latest_report_at: string;
  open_reports: number;
  escalated: boolean;
  claimed_by_id: number | null;
  claimed_by_username: string | null;
  feed_hidden: 'moderator' | 'automatic' | null;
  suspended_until: string | null;
  banned: boolean;
  strikes: number;
  username: string | null;
}

/**
 * Everything the queue says of a person, for the people `where` picks (a condition on `s`, the
 * person's reports aggregated). Open reports decide the state; the latest decision says escalated.
 */
function subjectsSql(where: string): string {
  return `
    with s as (
      select r.reported_id as subject_id,
             count(*) filter (where r.closed_at is null)::int as open_reports,
             count(distinct r.reporter_id) filter (where r.closed_at is null)::int as reporter_count,
             max(r.created_at) as latest_report_at,
             (array_agg(r.reported_display_name order by r.created_at desc))[1] as reported_name,
             bool_or(r.reason = ?) filter (where r.closed_at is null or ? = 'closed') as has_reason
        from reports r
       group by r.reported_id
    )
    select s.subject_id, coalesce(u.display_name, s.reported_name) as display_name, u.id is null as account_deleted,
           s.reporter_count, s.latest_report_at, s.open_reports, u.username,
           (select jsonb_object_agg(reason, n) from (
              select r.reason, count(*)::int as n from reports r
               where r.reported_id = s.subject_id and (r.closed_at is null or s.open_reports = 0)
               group by r.reason) counted) as reasons,
           coalesce((select e.kind = 'escalate' from moderation_events e
              where e.subject_id = s.subject_id and e.kind <> 'autoHide' order by e.id desc limit 1), false) as escalated,
           c.moderator_id as claimed_by_id, cu.username as claimed_by_username,
           u.feed_hidden, u.suspended_until, u.banned_at is not null as banned,
           (select count(*)::int from moderation_events e
             where e.subject_id = s.subject_id and e.kind in (${STRIKE_KINDS_SQL})
               and e.created_at > now() - make_interval(days => ${STRIKE_PERIOD_DAYS})
               and not exists (select 1 from moderation_events r where r.reverses_id = e.id)) as strikes
      from s
      left join users u on u.id = s.subject_id
      left join moderation_claims c on c.subject_id = s.subject_id
      left join users cu on cu.id = c.moderator_id
     where ${where}`;
}

function toSubject(row: SubjectRow): QueueSubject {
  const suspendedUntil = row.suspended_until && new Date(row.suspended_until) > new Date() ? row.suspended_until : null;
  const state: QueueState = row.open_reports === 0 ? 'closed' : row.escalated ? 'escalated' : 'open';
  return {
    subjectId: row.subject_id,
    displayName: row.display_name,
    accountDeleted: row.account_deleted,
    state,
    reporterCount: row.reporter_count,
    reasons: REPORT_REASONS.filter((reason) => row.reasons?.[reason]).map((reason) => ({
      reason,
      count: row.reasons?.[reason] ?? 0,
    })),
    latestReportAt: iso(row.latest_report_at) as string,
    claimedBy:
      row.claimed_by_id !== null ? { id: row.claimed_by_id, username: row.claimed_by_username ?? 'moderator' } : null,
    standing: {
      hiddenFromFeeds: row.feed_hidden !== null || suspendedUntil !== null || row.banned,
      suspendedUntil: iso(suspendedUntil),
      banned: row.banned,
      autoHidden: row.feed_hidden === 'automatic',
    },
    strikes: row.strikes,
  };
}

/** The queue: people with open reports (or escalated, or closed), most-reported first, then newest. */
export async function queue(
  em: EntityManager,
  filter: { state: QueueState; reason?: ReportReason },
): Promise<QueueSubject[]> {
  const rows = await sql<SubjectRow>(
    em,
    `select * from (${subjectsSql(
      `(? = 'closed' and s.open_reports = 0 or ? <> 'closed' and s.open_reports > 0) and (?::text is null or s.has_reason)`,
    )}) q
     where (? = 'closed' or q.escalated = (? = 'escalated'))
     order by q.reporter_count desc, q.latest_report_at desc
     limit ${QUEUE_SIZE}`,
    [filter.reason ?? '', filter.state, filter.state, filter.state, filter.reason ?? null, filter.state, filter.state],
  );
  return rows.map(toSubject);
}

/** One person as the queue shows them; null when nobody ever reported them. */
export async function subjectSummary(em: EntityManager, subjectId: number): Promise<QueueSubject | null> {
  const [row] = await sql<SubjectRow>(em, subjectsSql('s.subject_id = ?'), ['', 'open', subjectId]);
  return row ? toSubject(row) : null;
}

const APPEAL_SELECT = `
  select a.id, a.event_id, a.text, a.state, a.created_at, a.decided_at, e.subject_id,
         e.id as e_id, e.moderator_id, e.moderator_username, e.kind, e.reason, e.rule, e.explanation, e.ends_at,
         e.created_at as e_created_at, ${subjectNameOf('e')} as subject_name
    from appeals a join moderation_events e on e.id = a.event_id`;

type AppealRow = Omit<EventRow, 'id' | 'created_at'> & {
  id: number;
  event_id: number;
  text: string;
  state: Appeal['state'];
  created_at: string;
  decided_at: string | null;
  e_id: number;
  e_created_at: string;
};

export const toAppeal = (row: AppealRow): Appeal => ({
  id: row.id,
  actionId: row.event_id,
  subjectId: row.subject_id,
  text: row.text,
  state: row.state,
  createdAt: iso(row.created_at) as string,
  decidedAt: iso(row.decided_at),
  action: toEvent({ ...row, id: row.e_id, created_at: row.e_created_at }),
});

/** Open appeals for this moderator: never of an action they took themselves. */
export async function openAppealsFor(em: EntityManager, moderatorId: number): Promise<Appeal[]> {
  const rows = await sql<AppealRow>(
    em,
    `${APPEAL_SELECT} where a.state = 'open' and e.moderator_id is distinct from ? order by a.id limit ${QUEUE_SIZE}`,
    [moderatorId],
  );
  return rows.map(toAppeal);
}

export async function appealById(em: EntityManager, appealId: number): Promise<Appeal | null> {
  const [row] = await sql<AppealRow>(em, `${APPEAL_SELECT} where a.id = ?`, [appealId]);
  return row ? toAppeal(row) : null;
}

/** What repeated strikes suggest next (docs/moderation.md, "Strikes"). */
export function suggestionFor(strikes: number): SubjectDetail['suggestion'] {
  return strikes === 0 ? 'warn' : strikes === 1 ? 'hide' : strikes === 2 ? 'suspend' : 'ban';
}

/** One person's whole file; 404 for someone nobody reported. */
export async function subjectDetail(em: EntityManager, subjectId: number): Promise<SubjectDetail> {
  const [subject] = await sql<SubjectRow>(em, subjectsSql('s.subject_id = ?'), ['', 'open', subjectId]);
  if (!subject) throw notFound('Nobody with this id has been reported.');
  const reports = await sql<{
    id: number;
    reason: ReportReason;
    details: string | null;
    created_at: string;
    closed_at: string | null;
    reporter_id: number | null;
    reporter_username: string | null;
    reporter_display_name: string | null;
    reported_profile: Record<string, unknown> | null;
    messages: { seq: number; content: string; sent_at: string }[] | null;
  }>(
    em,
    `select r.id, r.reason, r.details, r.created_at, r.closed_at, r.reporter_id, ru.username as reporter_username,
            ru.display_name as reporter_display_name, r.reported_profile,
            (select json_agg(json_build_object('seq', m.seq, 'content', m.content, 'sent_at', m.sent_at) order by m.seq)
               from report_messages m where m.report_id = r.id) as messages
       from reports r left join users ru on ru.id = r.reporter_id
      where r.reported_id = ?
      order by r.closed_at is null desc, r.created_at desc
      limit 200`,
    [subjectId],
  );
  const events = await sql<EventRow>(
    em,
    `select ${EVENT_COLUMNS} from moderation_events e where e.subject_id = ? order by e.id desc limit 200`,
    [subjectId],
  );
  const appeals = await sql<AppealRow>(em, `${APPEAL_SELECT} where e.subject_id = ? order by a.id desc`, [subjectId]);
  const summary = toSubject(subject);
  return {
    subject: { ...summary, username: subject.username },
    reports: reports.map((r) => ({
      id: r.id,
      reason: r.reason,
      details: r.details,
      createdAt: iso(r.created_at) as string,
      open: r.closed_at === null,
      reporter:
        r.reporter_id !== null
          ? {
              id: r.reporter_id,
              username: r.reporter_username ?? '',
              displayName: r.reporter_display_name ?? '',
            }
          : null,
      profile: r.reported_profile
        ? {
            displayName: String(r.reported_profile.displayName ?? ''),
            tagline: (r.reported_profile.tagline as string | null) ?? null,
            profilePicture: (r.reported_profile.profilePicture as string | null) ?? null,
            intent: (r.reported_profile.intent as string | null) ?? null,
          }
        : null,
      messages: (r.messages ?? []).map((m) => ({
        seq: m.seq,
        content: m.content,
        sentAt: iso(m.sent_at) as string,
      })),
    })),
    events: events.map(toEvent),
    appeals: appeals.map(toAppeal),
    suggestion: suggestionFor(summary.strikes),
  };
}
