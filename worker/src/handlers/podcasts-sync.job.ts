import type { JobHandler } from './handler';
import { syncRssFeeds } from './rss-sync';
import { syncSpotifyLibrary } from './spotify-sync';

/** One job name for every podcast source; each source has its own module. */
export const podcastsSync: JobHandler<'podcastsSync'> = (payload, ctx) => {
  switch (payload.source) {
    case 'spotify':
      return syncSpotifyLibrary(payload, ctx);
    case 'rss':
      return syncRssFeeds(payload, ctx);
  }
};
