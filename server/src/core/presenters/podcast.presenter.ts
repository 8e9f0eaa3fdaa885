import type { FeedSharedPodcast, PodcastSummary, UserPodcastEntry } from '@shared/index';
import type { ArtworkUrls } from '../artwork/artwork-urls';
import type { PodcastSchema, UserPodcastSchema } from '../db/entities';
import type { RowOf } from '../db/sql';

/** A podcast's columns as the queries select them (`p.id, p.name, p.creator, p.image_url`). */
export type PodcastRow = Pick<RowOf<typeof PodcastSchema>, 'id' | 'name' | 'creator' | 'image_url'>;

/** The library entries (user_podcasts joined with podcasts) as LibraryRow; add `where` and the rest. */
export const LIBRARY_ENTRY_SELECT = `
  select up.id, up.user_id, up.podcast_id, up.episode_count, up.last_listened, up.hidden, up.times_listened,
         up.last_episode, up.source, p.name, p.creator, p.image_url, p.category
  from user_podcasts up join podcasts p on p.id = up.podcast_id`;

/** A row of user_podcasts joined with podcasts, as selected by the library queries. */
export type LibraryRow = Omit<RowOf<typeof UserPodcastSchema>, 'created_at'> &
  Pick<RowOf<typeof PodcastSchema>, 'name' | 'creator' | 'image_url' | 'category'>;

/**
 * A show as the client shows it: its artwork as a signed image proxy URL, never the remote
 * address (docs/image-proxy.md), so the browser loads it only through the proxy.
 */
export function toSharedPodcast(row: PodcastRow, artwork: ArtworkUrls): FeedSharedPodcast {
  return { id: row.id, name: row.name, creator: row.creator, imageUrl: artwork.forShow(row.name, row.image_url) };
}

export function toPodcastSummary(row: PodcastRow & { category: string | null }, artwork: ArtworkUrls): PodcastSummary {
  return { ...toSharedPodcast(row, artwork), category: row.category };
}

export function toUserPodcastEntry(row: LibraryRow, artwork: ArtworkUrls): UserPodcastEntry {
  return {
    id: row.id,
    userId: row.user_id,
    podcastId: row.podcast_id,
    episodeCount: row.episode_count,
    lastListened: row.last_listened ? new Date(row.last_listened).toISOString() : null,
    hidden: row.hidden,
    timesListened: row.times_listened,
    lastEpisode: row.last_episode,
    source: row.source,
    podcast: toPodcastSummary({ ...row, id: row.podcast_id }, artwork),
  };
}
