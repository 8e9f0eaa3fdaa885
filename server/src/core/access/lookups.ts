// The data look-ups of the access rules (shared/src/api/endpoint.ts, enforced by http/access.ts
// before any handler runs). Features ask the same questions through these functions (the chat
// socket checks a match as REST does), so a rule and its feature cannot drift apart. They answer
// data (a row, null, a boolean); the caller decides what a refusal looks like.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent, Role } from '@shared/index';
import { blockedEitherWay, sql } from '../db/sql';
import type { MatchRecord } from '../matches/decide';
import { notSuspended } from '../moderation/standing';
import { LIBRARY_ENTRY_SELECT, type LibraryRow } from '../presenters/podcast.presenter';
import { feedContains } from './feed-membership';

/** The intent the person is in now; null when there is no such person. */
export async function currentIntentOf(em: EntityManager, userId: number): Promise<Intent | null> {
  const [user] = await sql<{ intent: Intent }>(em, 'select intent from users where id = ?', [userId]);
  return user?.intent ?? null;
}

/** The person's moderation role (docs/moderation.md); null for everyone else. */
export async function roleOf(em: EntityManager, userId: number): Promise<Role | null> {
  const [user] = await sql<{ role: Role | null }>(em, 'select role from users where id = ?', [userId]);
  return user?.role ?? null;
}

/** The two people's live mutual match in `intent` (not unmatched, no block either way), if any. */
export async function liveMutualMatch(em: EntityManager, a: number, b: number, intent: Intent) {
  const [match] = await sql<{ id: number; match_percentage: number }>(
    em,
    `select m.id, m.match_percentage from matches m
      where m.user1_id = least(?::int, ?::int) and m.user2_id = greatest(?::int, ?::int) and m.intent = ?
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [a, b, a, b, intent],
  );
  return match;
}

/**
 * The `viewer` rule: may `viewerId` see `targetId` as they present themselves in `intent`? Only a
 * live mutual match in that intent, or someone in the viewer's feed of that intent; never across a
 * block. Everyone else does not exist for the viewer.
 */
export async function canSee(em: EntityManager, viewerId: number, targetId: number, intent: Intent) {
  if (await liveMutualMatch(em, viewerId, targetId, intent)) return true;
  return feedContains(em, viewerId, targetId, intent);
}

/**
 * The `decisionTarget` rule: whom a person may like or pass in `intent` (docs/auth.md, "Likes and
 * passes"). Checked before the like's transaction, which re-checks activity and blocks under the
 * pair lock: a feed that changes in between lets through only someone the actor saw a moment ago.
 * Someone in their feed
 * of that intent, or someone they already decided on there (a live mutual match, or a retry of their
 * own like or pass). Anyone else does not exist for them. Not "anyone who liked them": over HTTP that
 * would turn a pass into a test of who liked you, which a like that is not mutual never tells.
 */
export async function mayDecideOn(em: EntityManager, actorId: number, targetId: number, intent: Intent) {
  // The feed first: a person leaves the feed (a recompute drops them) only after the actor's own
  // decision committed, so a read that misses them in the feed then finds that decision.
  if (await feedContains(em, actorId, targetId, intent)) return true;
  const [own] = await sql(
    em,
    `select 1 from matches m
      where m.user1_id = least(?::int, ?::int) and m.user2_id = greatest(?::int, ?::int) and m.intent = ?
        and case when m.user1_id = ? then m.user1_acted else m.user2_acted end`,
    [actorId, targetId, actorId, targetId, intent, actorId],
  );
  return own !== undefined;
}

/**
 * The `reportTarget` rule: has `userId` come across `otherId` at all? In their candidates (the feed,
 * any intent, either way round), a match row of the two in any state, or a block of theirs. Nobody
 * reports (or makes moderators read about) ids they never saw.
 */
export async function hasComeAcross(em: EntityManager, userId: number, otherId: number) {
  const [row] = await sql<{ known: boolean }>(
    em,
    `select exists (select 1 from feed_candidates where (user_id = ? and candidate_id = ?) or (user_id = ? and candidate_id = ?))
         or exists (select 1 from matches where user1_id = least(?::int, ?::int) and user2_id = greatest(?::int, ?::int))
         or exists (select 1 from blocks where blocker_id = ? and blocked_id = ?) as known`,
    [userId, otherId, otherId, userId, userId, otherId, userId, otherId, userId, otherId],
  );
  return row?.known === true;
}

/**
 * The `matchParty` and `matchSender` rules: a mutual, live match the viewer is a party of, with no
 * block either way; null for anything else, a like that is not mutual included (callers answer
 * "not found" for all of them, so nobody learns who liked them or whether a match id exists).
 */
export async function findVisibleMatch(em: EntityManager, matchId: number, viewerId: number) {
  const [row] = await sql<MatchRecord>(
    em,
    `select m.* from matches m
       join users other on other.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
      where m.id = ? and (m.user1_id = ? or m.user2_id = ?)
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
        -- A suspended or banned person's matches are gone for the other side until it ends.
        and ${notSuspended('other')}`,
    [viewerId, matchId, viewerId, viewerId],
  );
  return row ?? null;
}

/** The `libraryEntryOwner` rule: one library entry, only if it belongs to this user (else null). */
export async function findOwnEntry(em: EntityManager, entryId: number, userId: number): Promise<LibraryRow | null> {
  const rows = await sql<LibraryRow>(em, `${LIBRARY_ENTRY_SELECT} where up.id = ? and up.user_id = ?`, [
    entryId,
    userId,
  ]);
  return rows[0] ?? null;
}
