// Statements of reasons: what a moderator decided about the person, and their appeal (docs/moderation.md).
export { NoticeHost } from './notice-dialog';
export { addNotice, noticesQuery } from './notice-queries';
