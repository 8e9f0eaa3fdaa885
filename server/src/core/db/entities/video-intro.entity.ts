import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { INTENTS, VIDEO_SOURCES, VIDEO_STATUSES } from '@shared/index';
import { UserSchema } from './user.entity';

/**
 * A video intro project (docs/videos.md): a generated intro or an uploaded file on its way to
 * becoming one intent's video. Its uuid is the projectId clients poll and the BullMQ job id.
 * At most one unfinished project per person and intent (partial unique index in the migration).
 */
export const VideoIntroSchema = defineEntity({
  name: 'VideoIntro',
  tableName: 'video_intros',
  properties: {
    id: p.uuid().primary(),
    userId: p
      .manyToOne(UserSchema)
      .mapToPk()
      .fieldName('user_id')
      // As Migration20261124100000 declared it (an inline `references`, so PostgreSQL named it).
      .foreignKeyName('video_intros_user_id_fkey')
      .deleteRule('cascade'),
    intent: p.enum([...INTENTS]),
    source: p.enum([...VIDEO_SOURCES]),
    status: p.enum([...VIDEO_STATUSES]),
    progress: p.smallint().default(0),
    matchPercentage: p.smallint().fieldName('match_percentage').default(95),
    /** The uploaded original, in the store's private `incoming/` folder until transcoded. */
    sourceKey: p.text().fieldName('source_key').nullable(),
    videoKey: p.text().fieldName('video_key').nullable(),
    posterKey: p.text().fieldName('poster_key').nullable(),
    errorCode: p.text().fieldName('error_code').nullable(),
    /** How many times the finished result was applied to the profile (exactly once; tests read it). */
    completions: p.smallint().default(0),
    createdAt: p
      .datetime()
      .fieldName('created_at')
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .fieldName('updated_at')
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
  indexes: [
    {
      // A person's projects per intent, newest first.
      name: 'video_intros_user_id_index',
      expression:
        'create index "video_intros_user_id_index" on "video_intros" ("user_id", "intent", "created_at" desc)',
    },
  ],
  uniques: [
    {
      name: 'video_intros_one_active',
      expression: `create unique index "video_intros_one_active" on "video_intros" ("user_id", "intent") where "status" not in ('completed', 'failed')`,
    },
  ],
});
export type VideoIntro = InferEntity<typeof VideoIntroSchema>;
