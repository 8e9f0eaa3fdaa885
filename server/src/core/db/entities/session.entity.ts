import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/** A bearer token, stored only as its SHA-256 hash. */
export const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('cascade').index(),
    tokenHash: p.string().unique().hidden(),
    /** Tokens rotated from one login share a family; logout revokes the whole family. */
    family: p.uuid().index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** When the login (the first token of the family) was made: rotation never goes past a maximum lifetime from it. */
    loginAt: p.datetime().fieldName('login_at'),
    expiresAt: p.datetime(),
    /** Set when a newer token replaced this one; the old one lives on for a short grace period. */
    rotatedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    userAgent: p.string().nullable(),
  },
});
export type Session = InferEntity<typeof SessionSchema>;
