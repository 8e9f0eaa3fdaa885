import type { EntityManager } from '@mikro-orm/postgresql';
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences, type QuietHours } from '@shared/index';
import type { NotificationPreferenceSchema } from '../db/entities';
import { type RowOf, sql } from '../db/sql';

type PreferenceRow = RowOf<typeof NotificationPreferenceSchema>;

export function toPreferences(row: PreferenceRow | undefined): NotificationPreferences {
  if (!row) return DEFAULT_NOTIFICATION_PREFERENCES;
  return {
    matches: row.matches,
    messages: row.messages,
    videos: row.videos,
    previews: row.previews,
    paused: row.paused,
    quietHours:
      row.quiet_start && row.quiet_end && row.time_zone
        ? { start: row.quiet_start, end: row.quiet_end, timeZone: row.time_zone }
        : null,
  };
}

/** What the person wants pushed (the defaults until they saved something). */
export async function preferencesOf(em: EntityManager, userId: number): Promise<NotificationPreferences> {
  const [row] = await sql<PreferenceRow>(em, 'select * from notification_preferences where user_id = ?', [userId]);
  return toPreferences(row);
}

/** Minutes since midnight of "HH:MM". */
const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Whether `at` falls in the quiet hours, read on the clock of their time zone (start inclusive, end exclusive). */
export function inQuietHours(quiet: QuietHours | null, at: Date): boolean {
  if (!quiet) return false;
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: quiet.timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  const now = hour * 60 + minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  // 22:00-07:00 runs past midnight: quiet from start until midnight, and from midnight until end.
  return start < end ? now >= start && now < end : now >= start || now < end;
}
