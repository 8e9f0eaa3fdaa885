/** Moderation roles (docs/moderation.md, "Roles"). Its own module: the user schema needs it too. */
export const ROLES = ['moderator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
