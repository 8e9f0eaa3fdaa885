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
import type { JobQueue } from '../../core/jobs/job-queue';
import { intArray, recomputeUser } from '../../core/matching/precompute';

type Row = Record<string, unknown>;

/** Below this many pending profiles, a stale list (older than REFRESH_AFTER_MS) is recomputed in the background. */
export const LOW_WATERMARK = 10;
export const REFRESH_AFTER_MS = 10 * 60_000;

export interface Viewer {
  id: number;
  intent: Intent;
  minMatchPercentage: number;
  computedAt: Date | null;
}

const sql = (em: EntityManager, text: string, params: unknown[] = []) =>
  em.getConnection().execute(text, params, 'all') as Promise<Row[]>;

export async function loadViewer(em: EntityManager, userId: number): Promise<Viewer | null> {
  const [row] = await sql(
    em,
    `select u.intent, u.match_preferences, r.computed_at
       from users u left join feed_candidate_runs r on r.user_id = u.id where u.id = ?`,
    [userId],
  );
  if (!row) return null;
  const prefs = (
    typeof row.match_preferences === 'string' ? JSON.parse(row.match_preferences) : row.match_preferences
  ) as { minMatchPercentage?: number } | null;
  return {
    id: userId,
    intent: row.intent as Intent,
    minMatchPercentage: Math.max(0, Math.min(100, Number(prefs?.minMatchPercentage ?? 0) || 0)),
    computedAt: row.computed_at ? new Date(row.computed_at as string) : null,
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
    and not exists (select 1 from blocks b where b.blocker_id = fc.user_id and b.blocked_id = fc.candidate_id)
    and not exists (select 1 from blocks b where b.blocker_id = fc.candidate_id and b.blocked_id = fc.user_id)`;
}

/** Emoji, pictographs and private-use characters out of a display name (SPEC section 3, Feed item). */
export function cleanDisplayName(name: string): string {
  return name
    .replace(/\p{Extended_Pictographic}|\p{Co}|\u{FE0F}|\u{200D}|\u{20E3}|[\u{1F3FB}-\u{1F3FF}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export async function feedFor(em: EntityManager, viewer: Viewer, intent: Intent): Promise<FeedItem[]> {
  const rows = await sql(
    em,
    `select fc.candidate_id, fc.score, fc.shared_podcast_ids,
            u.display_name, u.profile_picture, u.intent, u.tagline, u.romantic_tagline, u.platonic_tagline,
            u.professional_tagline, u.video_intro_url,
            pr.display_name as profile_display_name, pr.tagline as profile_tagline,
            pr.profile_picture as profile_picture_of_intent, pr.video_intro_url as profile_video_intro_url
       from feed_candidates fc
       join user_profiles pr on pr.user_id = fc.candidate_id and pr.intent = ? and pr.active
       join users u on u.id = fc.candidate_id
      where ${pendingConditions('?')}
      order by fc.score desc, fc.raw desc, fc.candidate_id
      limit ?`,
    [intent, viewer.id, viewer.minMatchPercentage, intent, FEED_PAGE_SIZE],
  );
  const shared = await sharedPodcastsFor(em, viewer.id, rows);
  return rows.map((row) => {
    const id = row.candidate_id as number;
    const profileName = (row.profile_display_name as string | null) ?? null;
    const displayName = cleanDisplayName(profileName || (row.display_name as string)) || (row.display_name as string);
    return {
      id,
      displayName,
      profilePicture: (row.profile_picture as string | null) ?? (row.profile_picture_of_intent as string | null),
      intent: row.intent as Intent,
      tagline: (row.tagline as string | null) ?? null,
      romanticTagline: (row.romantic_tagline as string | null) ?? null,
      platonicTagline: (row.platonic_tagline as string | null) ?? null,
      professionalTagline: (row.professional_tagline as string | null) ?? null,
      videoIntroUrl: (row.video_intro_url as string | null) ?? null,
      matchPercentage: row.score as number,
      profile: {
        displayName: profileName,
        tagline: (row.profile_tagline as string | null) ?? null,
        profilePicture: (row.profile_picture_of_intent as string | null) ?? null,
        videoIntroUrl: (row.profile_video_intro_url as string | null) ?? null,
      },
      sharedPodcasts: shared.get(id) ?? [],
    };
  });
}

/**
 * The stored explanation, re-checked now: a show either person has hidden (or removed) since the
 * precompute never shows. Order is the stored one (largest contribution first).
 */
async function sharedPodcastsFor(
  em: EntityManager,
  viewerId: number,
  rows: Row[],
): Promise<Map<number, FeedSharedPodcast[]>> {
  const wanted = rows.map((row) => ({
    candidateId: row.candidate_id as number,
    podcastIds: row.shared_podcast_ids as number[],
  }));
  const result = new Map<number, FeedSharedPodcast[]>();
  const podcastIds = [...new Set(wanted.flatMap((w) => w.podcastIds))];
  if (podcastIds.length === 0) return result;
  // Both sides' visible entries for these shows, through the (user_id, podcast_id) unique index.
  const found = await sql(
    em,
    `select up.user_id, p.id, p.name, p.creator, p.image_url
       from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = any(?::int[]) and up.podcast_id = any(?::int[]) and not up.hidden`,
    [intArray([viewerId, ...wanted.map((w) => w.candidateId)]), intArray(podcastIds)],
  );
  const visible = new Set(found.map((row) => `${row.user_id}:${row.id}`));
  const info = new Map<number, FeedSharedPodcast>();
  for (const row of found) {
    info.set(row.id as number, {
      id: row.id as number,
      name: row.name as string,
      creator: (row.creator as string | null) ?? null,
      imageUrl: (row.image_url as string | null) ?? null,
    });
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
  const rows = await sql(
    em,
    `select pr.intent, count(*)::int as n
       from feed_candidates fc
       join user_profiles pr on pr.user_id = fc.candidate_id and pr.active
      where ${pendingConditions('pr.intent')}
      group by pr.intent`,
    [viewer.id, viewer.minMatchPercentage],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as FeedCounts;
  for (const row of rows) counts[row.intent as Intent] = row.n as number;
  return counts;
}

/** When the viewer is running out of pending people, refresh their list in the background (deduped). */
export async function refreshIfLow(jobs: JobQueue, viewer: Viewer, pending: number): Promise<void> {
  if (pending >= LOW_WATERMARK || !viewer.computedAt) return;
  if (Date.now() - viewer.computedAt.getTime() < REFRESH_AFTER_MS) return;
  await jobs.enqueue('matchesRecompute', { scope: 'user', userId: viewer.id });
}
