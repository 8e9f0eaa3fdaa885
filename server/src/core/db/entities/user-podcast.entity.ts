import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PodcastSchema } from './podcast.entity';
import { UserSchema } from './user.entity';

/** A show in a user's library with their listening figures (SPEC section 3, user_podcasts). */
export const UserPodcastSchema = defineEntity({
  name: 'UserPodcast',
  tableName: 'user_podcasts',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.manyToOne(UserSchema).mapToPk().fieldName('user_id').deleteRule('cascade'),
    podcastId: p.manyToOne(PodcastSchema).mapToPk().fieldName('podcast_id').deleteRule('cascade').index(),
    episodeCount: p.integer().nullable(),
    lastListened: p.datetime().nullable(),
    hidden: p.boolean().default(false),
    timesListened: p.integer().default(0),
    lastEpisode: p.text().nullable(),
    /** Where the entry came from: disconnecting Spotify removes only its own entries. */
    source: p.enum(['spotify', 'opml', 'manual']).default('manual'),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  uniques: [{ properties: ['userId', 'podcastId'] }],
});
export type UserPodcast = InferEntity<typeof UserPodcastSchema>;
