// Another person's profile page (SPEC section 2, Profile details): their presentation for the
// intent in view, what they listen to, and what the viewer shares with them. Hidden podcasts never
// appear; who may ask is the `viewer` access rule (docs/auth.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  commonPodcastsShown,
  type Intent,
  PROFILE_DETAILS_LIMIT,
  type ProfileDetails,
  type RecentListen,
} from '@shared/index';
import { liveMutualMatch } from '../../core/access';
import type { ArtworkUrls } from '../../core/artwork/artwork-urls';
import { sql } from '../../core/db/sql';
import { storedScore } from '../../core/matches/decide';
import { type PodcastRow, toSharedPodcast } from '../../core/presenters/podcast.presenter';
import { toPublicUser } from '../../core/presenters/user.presenter';
import { sharedPodcastsWith } from '../matches/match.service';
import { publicUserRow } from '../users/user.service';

/** The pair's live mutual match in the intent, and the match %: the match's, else the stored score. */
async function matchBetween(em: EntityManager, viewerId: number, userId: number, intent: Intent) {
  const match = await liveMutualMatch(em, viewerId, userId, intent);
  if (match) return { match: { id: match.id }, matchPercentage: match.match_percentage };
  return { match: null, matchPercentage: await storedScore(em, viewerId, userId) };
}

export async function profileDetails(
  em: EntityManager,
  viewerId: number,
  userId: number,
  intent: Intent,
  artwork: ArtworkUrls,
): Promise<ProfileDetails> {
  const podcastOf = (row: PodcastRow) => toSharedPodcast(row, artwork);
  const self = viewerId === userId;
  const user = toPublicUser(await publicUserRow(em, userId, intent), intent);
  const pair = self ? { match: null, matchPercentage: 100 } : await matchBetween(em, viewerId, userId, intent);

  const topCategories = await sql<{ name: string; count: number }>(
    em,
    `select coalesce(p.category, p.categories[1]) as name, count(*)::int as count
       from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = ? and not up.hidden and (p.verified_at is not null or ?) and coalesce(p.category, p.categories[1]) is not null
      group by 1 order by count desc, name limit ?`,
    [userId, self, PROFILE_DETAILS_LIMIT],
  );
  const topPodcasts = await sql<PodcastRow & { times_listened: number }>(
    em,
    `select p.id, p.name, p.creator, p.image_url, up.times_listened
       from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = ? and not up.hidden and (p.verified_at is not null or ?)
      order by up.times_listened desc, up.last_listened desc nulls last, p.name, p.id limit ?`,
    [userId, self, PROFILE_DETAILS_LIMIT],
  );
  // The episode named by the entry's last_episode (a title), when the catalog has it.
  const recent = await sql<
    PodcastRow & {
      last_listened: Date;
      last_episode: string | null;
      episode_number: number | null;
      description: string | null;
    }
  >(
    em,
    `select p.id, p.name, p.creator, p.image_url, up.last_listened, up.last_episode, e.episode_number, e.description
       from user_podcasts up join podcasts p on p.id = up.podcast_id
       left join lateral (
         select episode_number, description from podcast_episodes
          where podcast_id = up.podcast_id and title = up.last_episode
          order by published_at desc nulls last limit 1
       ) e on true
      where up.user_id = ? and not up.hidden and (p.verified_at is not null or ?) and up.last_listened is not null
      order by up.last_listened desc, p.id limit ?`,
    [userId, self, PROFILE_DETAILS_LIMIT],
  );
  const recentListens: RecentListen[] = recent.map((row) => ({
    podcast: podcastOf(row),
    listenedAt: new Date(row.last_listened).toISOString(),
    episodeTitle: row.last_episode,
    episodeNumber: row.episode_number,
    description: row.description,
  }));

  // A verified handle links to a real public profile: matches see it, people in the feed do not.
  const [linked] =
    self || pair.match
      ? await sql<{ handle: string | null; did: string }>(
          em,
          `select handle, subject as did from user_identities where user_id = ? and provider = 'bluesky'`,
          [userId],
        )
      : [];
  const shared = self ? undefined : (await sharedPodcastsWith(em, viewerId, [userId], artwork)).get(userId);
  const count = shared?.count ?? 0;
  return {
    user,
    matchPercentage: pair.matchPercentage,
    match: pair.match,
    topCategories,
    topPodcasts: topPodcasts.map((row) => ({ ...podcastOf(row), timesListened: row.times_listened })),
    recentListens,
    common: {
      podcasts: (shared?.podcasts ?? []).slice(0, commonPodcastsShown(count, pair.matchPercentage)),
      count,
    },
    bluesky: linked?.handle ? { handle: linked.handle, did: linked.did } : null,
  };
}
