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
    /** Primary category (SPEC); `categories` keeps every category the feed or Spotify lists. */
    category: p.string().nullable(),
    categories: p.array().default([]),
    title: p.text().nullable(),
    description: p.text().nullable(),
    /** When the RSS feed was last read, and why it failed if it did. */
    lastFetchedAt: p.datetime().nullable(),
    fetchError: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    {
      // Search tolerant of typos and prefixes: trigram similarity on the lower-cased name.
      name: 'podcasts_name_trgm_index',
      expression: 'create index "podcasts_name_trgm_index" on "podcasts" using gin (lower("name") gin_trgm_ops)',
    },
  ],
});
export type Podcast = InferEntity<typeof PodcastSchema>;
