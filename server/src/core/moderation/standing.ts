// What moderation keeps in force against a person (docs/moderation.md), as SQL conditions on their
// `users` row: every feed, match list and chat check reads them, so a suspension takes effect
// everywhere at once and ends by itself when its time is up.
import { STRIKE_ACTIONS } from '@shared/index';

/** Not suspended or banned now (`alias` is a `users` row). */
export const notSuspended = (alias: string) =>
  `(${alias}.banned_at is null and (${alias}.suspended_until is null or ${alias}.suspended_until <= now()))`;

/** May appear in new feeds: not hidden (by a moderator or automatically), not suspended or banned. */
export const shownInFeeds = (alias: string) => `(${alias}.feed_hidden is null and ${notSuspended(alias)})`;

/** The event kinds that count as strikes, as an SQL list for `kind in (...)`. */
export const STRIKE_KINDS_SQL = STRIKE_ACTIONS.map((kind) => `'${kind}'`).join(', ');

/** The name of the person a moderation event `alias` is about: now, else as last reported. */
export const subjectNameOf = (alias: string) => `coalesce(
    (select n.display_name from users n where n.id = ${alias}.subject_id),
    (select r.reported_display_name from reports r where r.reported_id = ${alias}.subject_id order by r.id desc limit 1),
    'Deleted account')`;
