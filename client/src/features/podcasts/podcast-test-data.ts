import type { PodcastSummary, UserPodcastEntry } from '@shared/schemas/podcasts';

/** A catalog show that passes the shared schema (tests only). */
export function makePodcast(overrides: Partial<PodcastSummary> = {}): PodcastSummary {
  return {
    id: 100,
    name: 'Hardcore History',
    creator: 'Dan Carlin',
    imageUrl: null,
    category: 'History',
    ...overrides,
  };
}

/** A library entry of user 7 that passes the shared schema (tests only). */
export function makeEntry(
  overrides: Partial<Omit<UserPodcastEntry, 'podcast'>> & { podcast?: Partial<PodcastSummary> } = {},
): UserPodcastEntry {
  const { podcast, ...rest } = overrides;
  const show = makePodcast(podcast);
  return {
    id: 1,
    userId: 7,
    podcastId: show.id,
    episodeCount: null,
    lastListened: null,
    hidden: false,
    timesListened: 0,
    lastEpisode: null,
    source: 'manual',
    ...rest,
    podcast: show,
  };
}
