import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PodcastSchema } from './podcast.entity';

/** Recent episodes of a show, from its RSS feed or Spotify; keyed by the feed's guid. */
export const PodcastEpisodeSchema = defineEntity({
  name: 'PodcastEpisode',
  tableName: 'podcast_episodes',
  properties: {
    id: p.integer().primary().autoincrement(),
    podcastId: p.manyToOne(PodcastSchema).mapToPk().fieldName('podcast_id').deleteRule('cascade'),
    guid: p.text(),
    title: p.text(),
    description: p.text().nullable(),
    episodeNumber: p.integer().nullable(),
    publishedAt: p.datetime().nullable(),
    durationSeconds: p.integer().nullable(),
    spotifyId: p.string().nullable(),
  },
  uniques: [{ properties: ['podcastId', 'guid'] }],
  indexes: [{ properties: ['podcastId', 'publishedAt'] }],
});
export type PodcastEpisode = InferEntity<typeof PodcastEpisodeSchema>;
