import type { JobPayload, JobResult } from '@shared/index';
import type { JobContext } from './handler';

type SpotifyPayload = Extract<JobPayload<'podcastsSync'>, { source: 'spotify' }>;

/** Reads the user's saved shows and episodes from Spotify into their library. */
export async function syncSpotifyLibrary(
  _payload: SpotifyPayload,
  _ctx: JobContext,
): Promise<JobResult<'podcastsSync'>> {
  throw new Error('Spotify sync is not available yet');
}
