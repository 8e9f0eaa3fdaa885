// For admins (docs/moderation.md, "Audit log" and "Transparency"): every moderation event, newest
// first, and the counts a transparency report publishes (the EU Digital Services Act asks for
// them): reports by reason, actions by type, the median time to action, appeals and outcomes.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ModerationEvent, TransparencyReport } from '@shared/index';
import { sql } from '../../core/db/sql';
import { badRequest } from '../../http/errors';
import { EVENT_COLUMNS, type EventRow, toEvent } from './queue.service';

const PAGE = 50;

export async function auditLog(
  em: EntityManager,
  before: number | undefined,
): Promise<{ events: ModerationEvent[]; nextBefore: number | null }> {
  const rows = await sql<EventRow>(
    em,
    `select ${EVENT_COLUMNS} from moderation_events e where (?::int is null or e.id < ?) order by e.id desc limit ${PAGE + 1}`,
    [before ?? null, before ?? null],
  );
  const page = rows.slice(0, PAGE);
  return { events: page.map(toEvent), nextBefore: rows.length > PAGE ? (page.at(-1)?.id ?? null) : null };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const dateOnly = (date: Date) => date.toISOString().slice(0, 10);

/** The counts of [from, to] (whole UTC days; default: the last 30 days). */
export async function transparencyReport(
  em: EntityManager,
  range: { from?: string; to?: string },
): Promise<TransparencyReport> {
  const to = range.to ?? dateOnly(new Date());
  const from = range.from ?? dateOnly(new Date(Date.parse(to) - 29 * DAY_MS));
  if (from > to) throw badRequest('The start date must not be after the end date.');
  const window = [from, to];
  const counts = async (text: string) =>
    Object.fromEntries(
      (await sql<{ key: string; n: number }>(em, text, window)).map((row) => [row.key, row.n]),
    ) as Record<string, number>;
  const inWindow = (column: string) => `${column} >= ?::date and ${column} < (?::date + interval '1 day')`;
  const reportsByReason = await counts(
    `select reason as key, count(*)::int as n from reports where ${inWindow('created_at')} group by reason`,
  );
  const actionsByKind = await counts(
    `select kind as key, count(*)::int as n from moderation_events
      where ${inWindow('created_at')} and moderator_id is not null group by kind`,
  );
  const [median] = await sql<{ hours: number | null }>(
    em,
    `select (percentile_cont(0.5) within group (order by extract(epoch from closed_at - created_at)) / 3600)::float as hours
       from reports where closed_at is not null and ${inWindow('closed_at')}`,
    window,
  );
  const appeals = await counts(
    `select state as key, count(*)::int as n from appeals where ${inWindow('created_at')} group by state`,
  );
  const [automatic] = await sql<{ n: number }>(
    em,
    `select count(*)::int as n from moderation_events where kind = 'autoHide' and ${inWindow('created_at')}`,
    window,
  );
  return {
    from,
    to,
    reportsByReason,
    actionsByKind,
    medianHoursToAction: median?.hours == null ? null : Math.round(median.hours * 10) / 10,
    appeals: {
      received: Object.values(appeals).reduce((a, b) => a + b, 0),
      upheld: appeals.upheld ?? 0,
      reversed: appeals.reversed ?? 0,
      open: appeals.open ?? 0,
    },
    automaticHides: automatic?.n ?? 0,
  };
}
