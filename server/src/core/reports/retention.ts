// How long reports are kept (docs/privacy.md, "Reports"): long enough to connect repeated abuse
// across deleted and new accounts and to handle appeals, not forever.
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../db/sql';

/** The default retention period of a report and its kept messages, in days (REPORT_RETENTION_DAYS). */
export const REPORT_RETENTION_DAYS = 365;

/**
 * Deletes reports made more than `olderThanDays` ago (their kept messages cascade), and moderation
 * events as old with their appeals and notices (docs/moderation.md, "Retention"): the audit log's
 * trigger lets only this purge delete; how many reports.
 */
export async function expireReports(em: EntityManager, olderThanDays: number): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await sql<{ id: number }>(
      tx,
      `delete from reports where created_at < now() - make_interval(days => ?) returning id`,
      [olderThanDays],
    );
    await sql(tx, `select set_config('podmatch.retention_purge', 'on', true)`);
    const old = `select id from moderation_events where created_at < now() - make_interval(days => ?)`;
    await sql(tx, `delete from moderation_notices where event_id in (${old})`, [olderThanDays]);
    await sql(tx, `delete from appeals where event_id in (${old}) or decision_event_id in (${old})`, [
      olderThanDays,
      olderThanDays,
    ]);
    await sql(
      tx,
      `delete from moderation_events where created_at < now() - make_interval(days => ?)
         and not exists (select 1 from appeals a where a.event_id = moderation_events.id)`,
      [olderThanDays],
    );
    return rows.length;
  });
}
