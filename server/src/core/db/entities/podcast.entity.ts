import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/**
 * A show in the catalog (SPEC section 3, podcasts). spotifyId is unique but nullable: shows that
 * come from an OPML/RSS import or search have none and are keyed by their normalised feed URL
 * (feedUrlKey) instead.
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
    /** Who created the row by an OPML import (the per-person quota); null for every other source. */
    addedBy: p
      .manyToOne(UserSchema)
      .mapToPk()
      .fieldName('added_by')
      .nullable()
      // As Migration20261124130000 declared it (an inline `references`, so PostgreSQL named it).
      .foreignKeyName('podcasts_added_by_fkey')
      .updateRule('no action')
      .deleteRule('set null'),
    /**
     * When others may see the row's name and artwork: at creation for trusted sources (seeds,
     * Spotify), after the first successful feed read for a row an import created (docs/podcasts.md).
     */
    verifiedAt: p
      .datetime()
      .nullable()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    /** Set while a read of this feed is queued: repeated imports queue it once (cleared by the read). */
    fetchQueuedAt: p.datetime().nullable(),
    /**
     * The Podcast Index id (`<podcast:guid>`) the row's own feed stated at its last read; a claim of
     * the feed, trusted for merging only when it is derived from this row's feed URL (rss-sync.ts).
     */
    podcastGuid: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /**
     * Written by PostgreSQL (Migration20261123200000): the feed URL and the name normalised, so one
     * show keeps one row however an import spells it (docs/podcasts.md, "One show, one row").
     */
    feedUrlKey: p.text().nullable().generated('(podcast_feed_key(feed_url)) stored'),
    nameKey: p.text().nullable().generated('(podcast_title_key(name)) stored'),
  },
  uniques: [{ name: 'podcasts_feed_url_key_unique', properties: ['feedUrlKey'] }],
  indexes: [
    { name: 'podcasts_name_key_index', properties: ['nameKey'] },
    {
      // The per-person daily quota of imported shows.
      name: 'podcasts_added_by_created_at_index',
      expression:
        'create index "podcasts_added_by_created_at_index" on "podcasts" ("added_by", "created_at") where "added_by" is not null',
    },
    {
      name: 'podcasts_podcast_guid_index',
      expression:
        'create index "podcasts_podcast_guid_index" on "podcasts" ("podcast_guid") where "podcast_guid" is not null',
    },
    {
      // Search tolerant of typos and prefixes: trigram similarity on the normalised name and creator.
      name: 'podcasts_name_key_trgm_index',
      expression: 'create index "podcasts_name_key_trgm_index" on "podcasts" using gin ("name_key" gin_trgm_ops)',
    },
    {
      name: 'podcasts_creator_key_trgm_index',
      expression:
        'create index "podcasts_creator_key_trgm_index" on "podcasts" using gin (podcast_title_key("creator") gin_trgm_ops)',
    },
  ],
});

/**
 * The advisory lock podcasts_merge() takes exclusively (Migration20261123200000). Whoever resolves
 * shows to rows and then writes entries pointing at them holds it shared for the transaction, so a
 * row cannot be merged away in between.
 */
export const PODCAST_MERGE_LOCK = 7_346_202;

/**
 * Text PostgreSQL accepts: no control characters (NUL is refused outright) and no lone surrogate
 * halves (refused in JSON), whitespace collapsed; at most `max` characters.
 */
export function storableText(value: string, max: number): string {
  // max code points fit in the first 2 * max UTF-16 units, so that cut never splits one.
  const clean = value.slice(0, 2 * max).replace(/[\p{Cc}\p{Cs}\s]+/gu, ' ');
  return Array.from(clean.trim()).slice(0, max).join('').trim();
}

export type Podcast = InferEntity<typeof PodcastSchema>;
