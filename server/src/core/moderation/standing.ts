// What moderation keeps in force against a person (docs/moderation.md), as SQL conditions on their
// `users` row: every feed, match list and chat check reads them, so a suspension takes effect
// everywhere at once and ends by itself when its time is up.

/** Not suspended or banned now (`alias` is a `users` row). */
export const notSuspended = (alias: string) =>
  `(${alias}.banned_at is null and (${alias}.suspended_until is null or ${alias}.suspended_until <= now()))`;

/** May appear in new feeds: not hidden (by a moderator or automatically), not suspended or banned. */
export const shownInFeeds = (alias: string) => `(${alias}.feed_hidden is null and ${notSuspended(alias)})`;
