// How long reports are kept (docs/privacy.md, "Reports"): long enough to connect repeated abuse
// across deleted and new accounts and to handle appeals, not forever.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../db/sql';

/** The default retention period of a report and its kept messages, in days (REPORT_RETENTION_DAYS). */
export const REPORT_RETENTION_DAYS = 365;

/** Deletes reports made more than `olderThanDays` ago (their kept messages cascade); how many. */
export async function expireReports(em: EntityManager, olderThanDays: number): Promise<number> {
  const rows = await sql<{ id: number }>(
    em,
    `delete from reports where created_at < now() - make_interval(days => ?) returning id`,
    [olderThanDays],
  );
  return rows.length;
}
