// The feed: one indexed read of the precomputed candidates (core/matching), filtered at read
// time by intent activity, likes/passes, blocks and the viewer's minimum match % (the conditions
// live in core/access/feed-membership.ts, where the access rules ask them of one person).
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  FEED_PAGE_SIZE,
  type FeedCounts,
  type FeedItem,
  type FeedSharedPodcast,
  INTENTS,
  type Intent,
} from '@shared/index';
import { pendingConditions, type Viewer } from '../../core/access';
import type { ArtworkUrls } from '../../core/artwork/artwork-urls';
import type { FeedCandidateSchema } from '../../core/db/entities';
import { intArray, type RowOf, sql } from '../../core/db/sql';
import type { JobQueue } from '../../core/jobs/job-queue';
import { recomputeUser } from '../../core/matching/precompute';
import { type PodcastRow, toSharedPodcast } from '../../core/presenters/podcast.presenter';
import { PUBLIC_USER_COLUMNS, type PublicUserRow, toPublicUser } from '../../core/presenters/user.presenter';

/** Below this many pending profiles, a stale list (older than REFRESH_AFTER_MS) is recomputed in the background. */
export const LOW_WATERMARK = 10;
export const REFRESH_AFTER_MS = 10 * 60_000;

export { loadViewer, type Viewer } from '../../core/access';

/**
 * Makes sure the viewer has a computed candidate list. A user the precompute never saw (new
 * account, or no job run yet) is computed synchronously, once: one user's recompute reads only the
 * postings of their rarer shows (docs/matching.md).
 */
export async function ensureComputed(em: EntityManager, viewer: Viewer): Promise<void> {
  if (viewer.computedAt) return;
  await recomputeUser(em.fork(), viewer.id);
  viewer.computedAt = new Date();
}

type FeedRow = PublicUserRow & Pick<RowOf<typeof FeedCandidateSchema>, 'candidate_id' | 'score' | 'shared_podcast_ids'>;

export async function feedFor(
  em: EntityManager,
  viewer: Viewer,
  intent: Intent,
  artwork: ArtworkUrls,
): Promise<FeedItem[]> {
  const rows = await sql<FeedRow>(
    em,
    `select fc.candidate_id, fc.score, fc.shared_podcast_ids, ${PUBLIC_USER_COLUMNS}
       from feed_candidates fc
       join user_profiles pr on pr.user_id = fc.candidate_id and pr.intent = ? and pr.active
       join users u on u.id = fc.candidate_id
      where ${pendingConditions('?')}
      -- People who share a show always come before those who do not (docs/matching.md).
      order by cardinality(fc.shared_podcast_ids) > 0 desc, fc.score desc, fc.raw desc, fc.candidate_id
      limit ?`,
    [intent, viewer.id, viewer.minMatchPercentage, intent, FEED_PAGE_SIZE],
  );
  const shared = await sharedPodcastsFor(em, viewer.id, rows, artwork);
  return rows.map((row) => ({
    ...toPublicUser(row, intent),
    matchPercentage: row.score,
    profile: {
      displayName: row.pr_display_name,
      tagline: row.pr_tagline,
      profilePicture: row.pr_profile_picture,
      videoIntroUrl: row.pr_video_intro_url,
      videoPosterUrl: row.pr_video_poster_url ?? null,
    },
    sharedPodcasts: shared.get(row.candidate_id) ?? [],
  }));
}

/**
 * The stored explanation, re-checked now: a show either person has hidden (or removed) since the
 * precompute never shows. Order is the stored one (largest contribution first).
 */
async function sharedPodcastsFor(
  em: EntityManager,
  viewerId: number,
  rows: FeedRow[],
  artwork: ArtworkUrls,
): Promise<Map<number, FeedSharedPodcast[]>> {
  const wanted = rows.map((row) => ({ candidateId: row.candidate_id, podcastIds: row.shared_podcast_ids }));
  const result = new Map<number, FeedSharedPodcast[]>();
  const podcastIds = [...new Set(wanted.flatMap((w) => w.podcastIds))];
  if (podcastIds.length === 0) return result;
  // Both sides' visible entries for these shows, through the (user_id, podcast_id) unique index.
  const found = await sql<PodcastRow & { user_id: number }>(
    em,
    `select up.user_id, p.id, p.name, p.creator, p.image_url
       from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = any(?::int[]) and up.podcast_id = any(?::int[]) and not up.hidden
        and p.id = any(?::int[]) and p.verified_at is not null`,
    // The podcast ids twice: on podcasts too, so the join probes ~15 catalog rows instead of hashing all.
    [intArray([viewerId, ...wanted.map((w) => w.candidateId)]), intArray(podcastIds), intArray(podcastIds)],
  );
  const visible = new Set(found.map((row) => `${row.user_id}:${row.id}`));
  const info = new Map<number, FeedSharedPodcast>();
  for (const row of found) {
    if (!info.has(row.id)) info.set(row.id, toSharedPodcast(row, artwork));
  }
  for (const { candidateId, podcastIds: ids } of wanted) {
    result.set(
      candidateId,
      ids
        .filter((id) => visible.has(`${viewerId}:${id}`) && visible.has(`${candidateId}:${id}`))
        .map((id) => info.get(id) as FeedSharedPodcast),
    );
  }
  return result;
}

export async function feedCountsFor(em: EntityManager, viewer: Viewer): Promise<FeedCounts> {
  const rows = await sql<{ intent: Intent; n: number }>(
    em,
    `select pr.intent, count(*)::int as n
       from feed_candidates fc
       join user_profiles pr on pr.user_id = fc.candidate_id and pr.active
      where ${pendingConditions('pr.intent')}
      group by pr.intent`,
    [viewer.id, viewer.minMatchPercentage],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as FeedCounts;
  for (const row of rows) counts[row.intent] = row.n;
  return counts;
}

/** When the viewer is running out of pending people, refresh their list in the background (deduped). */
export async function refreshIfLow(jobs: JobQueue, viewer: Viewer, pending: number): Promise<void> {
  if (pending >= LOW_WATERMARK || !viewer.computedAt) return;
  if (Date.now() - viewer.computedAt.getTime() < REFRESH_AFTER_MS) return;
  await jobs.enqueue('matchesRecompute', { scope: 'user', userId: viewer.id });
}
