import type { UserPodcastEntry } from '@shared/index';

/** A row of user_podcasts joined with podcasts, as selected by the library queries. */
export interface LibraryRow {
  id: number;
  user_id: number;
  podcast_id: number;
  episode_count: number | null;
  last_listened: Date | null;
  hidden: boolean;
  times_listened: number;
  last_episode: string | null;
  source: 'spotify' | 'opml' | 'manual';
  name: string;
  creator: string | null;
  image_url: string | null;
  category: string | null;
}

export function toUserPodcastEntry(row: LibraryRow): UserPodcastEntry {
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
    podcast: {
      id: row.podcast_id,
      name: row.name,
      creator: row.creator,
      imageUrl: row.image_url,
      category: row.category,
    },
  };
}
