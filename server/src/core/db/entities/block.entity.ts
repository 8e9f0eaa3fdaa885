import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/** blocker no longer sees blocked, and the other way round, anywhere. */
export const BlockSchema = defineEntity({
  name: 'Block',
  tableName: 'blocks',
  properties: {
    id: p.integer().primary().autoincrement(),
    blockerId: p.manyToOne(UserSchema).mapToPk().fieldName('blocker_id').deleteRule('cascade'),
    blockedId: p.manyToOne(UserSchema).mapToPk().fieldName('blocked_id').deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['blockerId', 'blockedId'] }],
});
export type Block = InferEntity<typeof BlockSchema>;
