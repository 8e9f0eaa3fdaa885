import type { JobHandler } from './handler';
import { syncRssFeeds } from './rss-sync';
import { syncSpotifyLibrary } from './spotify-sync';

/**
 * One job name for every podcast source; each source has its own module. A changed library
 * changes who this user matches, so a recompute of their feed candidates follows.
 */
export const podcastsSync: JobHandler<'podcastsSync'> = async (payload, ctx) => {
  const result =
    payload.source === 'spotify' ? await syncSpotifyLibrary(payload, ctx) : await syncRssFeeds(payload, ctx);
  await ctx.enqueue('matchesRecompute', { scope: 'user', userId: payload.userId });
  return result;
};
