// The feed: one indexed read of the precomputed candidates (features/matching), filtered at read
// time by intent activity, likes/passes, blocks and the viewer's minimum match %.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  FEED_PAGE_SIZE,
  type FeedCounts,
  type FeedItem,
  type FeedSharedPodcast,
  INTENTS,
  type Intent,
} from '@shared/index';
import type { ArtworkUrls } from '../../core/artwork/artwork-urls';
import type { FeedCandidateSchema } from '../../core/db/entities';
import { blockedEitherWay, intArray, type RowOf, sql } from '../../core/db/sql';
import type { JobQueue } from '../../core/jobs/job-queue';
import { recomputeUser } from '../../core/matching/precompute';
import { type PodcastRow, toSharedPodcast } from '../../core/presenters/podcast.presenter';
import { PUBLIC_USER_COLUMNS, type PublicUserRow, toPublicUser } from '../../core/presenters/user.presenter';

/** Below this many pending profiles, a stale list (older than REFRESH_AFTER_MS) is recomputed in the background. */
export const LOW_WATERMARK = 10;
export const REFRESH_AFTER_MS = 10 * 60_000;

export interface Viewer {
  id: number;
  intent: Intent;
  minMatchPercentage: number;
  computedAt: Date | null;
}

export async function loadViewer(em: EntityManager, userId: number): Promise<Viewer | null> {
  const [row] = await sql<{
    intent: Intent;
    match_preferences: string | { minMatchPercentage?: number } | null;
    computed_at: Date | null;
  }>(
    em,
    `select u.intent, u.match_preferences, r.computed_at
       from users u left join feed_candidate_runs r on r.user_id = u.id where u.id = ?`,
    [userId],
  );
  if (!row) return null;
  const prefs = typeof row.match_preferences === 'string' ? JSON.parse(row.match_preferences) : row.match_preferences;
  return {
    id: userId,
    intent: row.intent,
    minMatchPercentage: Math.max(0, Math.min(100, Number(prefs?.minMatchPercentage ?? 0) || 0)),
    computedAt: row.computed_at ? new Date(row.computed_at) : null,
  };
}

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

/** Conditions shared by the feed and the counts; `$intent` is a column or a bound value. */
function pendingConditions(intentExpr: string): string {
  // Equalities on whole index keys only (no OR), so each check is one index probe.
  return `fc.user_id = ? and fc.score >= ?
    and not exists (select 1 from matches m
          where m.user1_id = least(fc.user_id, fc.candidate_id) and m.user2_id = greatest(fc.user_id, fc.candidate_id)
            and m.intent = ${intentExpr}
            and case when m.user1_id = fc.user_id then m.user1_acted else m.user2_acted end)
    and not ${blockedEitherWay('fc.user_id', 'fc.candidate_id')}`;
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

/** Whether `candidateId` is in the viewer's feed of this intent right now (the `viewer` access rule). */
export async function feedContains(em: EntityManager, viewerId: number, candidateId: number, intent: Intent) {
  const viewer = await loadViewer(em, viewerId);
  if (!viewer) return false;
  const [row] = await sql(
    em,
    `select 1 from feed_candidates fc
       join user_profiles pr on pr.user_id = fc.candidate_id and pr.intent = ? and pr.active
      where fc.candidate_id = ? and ${pendingConditions('?')}`,
    [intent, candidateId, viewer.id, viewer.minMatchPercentage, intent],
  );
  return row !== undefined;
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
