import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * A show in the catalog (SPEC section 3, podcasts). spotifyId is unique but nullable: shows that
 * come from an OPML/RSS import or search have none and are keyed by feedUrl instead.
 */
export const PodcastSchema = defineEntity({
  name: 'Podcast',
  tableName: 'podcasts',
  properties: {
    id: p.integer().primary().autoincrement(),
    spotifyId: p.string().nullable().unique(),
    feedUrl: p.text().nullable().unique(),
    name: p.text(),
    creator: p.text().nullable(),
    imageUrl: p.text().nullable(),
    category: p.string().nullable(),
    title: p.text().nullable(),
    description: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Podcast = InferEntity<typeof PodcastSchema>;
