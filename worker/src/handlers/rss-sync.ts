import type { JobPayload, JobResult } from '@shared/index';
import type { JobContext } from './handler';

type RssPayload = Extract<JobPayload<'podcastsSync'>, { source: 'rss' }>;

/** Reads each podcast's RSS feed for title, author, artwork, categories and recent episodes. */
export async function syncRssFeeds(_payload: RssPayload, _ctx: JobContext): Promise<JobResult<'podcastsSync'>> {
  throw new Error('RSS sync is not available yet');
}
