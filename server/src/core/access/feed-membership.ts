// Who is in a person's feed right now: the precomputed candidates (core/matching) that are still
// pending, filtered at read time by likes/passes, blocks and the viewer's minimum match %. The feed
// reads with these conditions, and the access rules ask the same question of one person
// (`viewer`, `decisionTarget`), so what a feed shows and what a rule lets through cannot drift.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent } from '@shared/index';
import { blockedEitherWay, sql } from '../db/sql';
import { shownInFeeds } from '../moderation/standing';

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
 * The conditions of a pending candidate `fc` (feed_candidates) of the viewer: bind the viewer's id
 * and minimum match %, in that order. `intentExpr` is a column or a bound value.
 */
export function pendingConditions(intentExpr: string): string {
  // Equalities on whole index keys only (no OR), so each check is one index probe.
  return `fc.user_id = ? and fc.score >= ?
    and not exists (select 1 from matches m
          where m.user1_id = least(fc.user_id, fc.candidate_id) and m.user2_id = greatest(fc.user_id, fc.candidate_id)
            and m.intent = ${intentExpr}
            and case when m.user1_id = fc.user_id then m.user1_acted else m.user2_acted end)
    and not ${blockedEitherWay('fc.user_id', 'fc.candidate_id')}
    -- Moderation (docs/moderation.md): nobody hidden, suspended or banned is shown, and someone
    -- hidden sees nobody new either, so a hide makes no new matches.
    and exists (select 1 from users shown where shown.id = fc.candidate_id and ${shownInFeeds('shown')})
    and exists (select 1 from users viewer where viewer.id = fc.user_id and ${shownInFeeds('viewer')})`;
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
