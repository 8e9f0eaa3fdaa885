import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { INTENTS } from '@shared/index';
import { UserSchema } from './user.entity';

/** One presentation of a user per intent (SPEC section 3, user_profiles). */
export const UserProfileSchema = defineEntity({
  name: 'UserProfile',
  tableName: 'user_profiles',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    intent: p.enum([...INTENTS]),
    displayName: p.string().nullable(),
    tagline: p.text().nullable(),
    videoIntroUrl: p.text().nullable(),
    /** The first frame of that video (docs/videos.md). */
    videoPosterUrl: p.text().fieldName('video_poster_url').nullable(),
    profilePicture: p.text().nullable(),
    /** Whether this person wants to appear in feeds of this intent. */
    active: p.boolean().default(true),
  },
  uniques: [{ properties: ['userId', 'intent'] }],
});
export type UserProfile = InferEntity<typeof UserProfileSchema>;
