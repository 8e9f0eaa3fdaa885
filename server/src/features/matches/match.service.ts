// Likes, passes, mutual matches, favourites, unmatch, block and report (docs/matches.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENTS, type Intent, type MatchView, type PublicUser, type ReportBody } from '@shared/index';
import { blockedEitherWay, lockPair, sql } from '../../core/db/sql';
import { PUBLIC_USER_COLUMNS, type PublicUserRow, toPublicUser } from '../../core/presenters/user.presenter';
import { conflict, notFound } from '../../http/errors';
import { publicUserRow } from '../users/user.service';

/** A `matches` row as stored: one per unordered pair (user1_id < user2_id) per intent. */
export interface MatchRecord {
  id: number;
  user1_id: number;
  user2_id: number;
  intent: Intent;
  match_percentage: number;
  user1_liked: boolean;
  user2_liked: boolean;
  user1_acted: boolean;
  user2_acted: boolean;
  user1_favorite: boolean;
  user2_favorite: boolean;
  user1_seen_at: Date | null;
  user2_seen_at: Date | null;
  mutual_at: Date | null;
  unmatched_at: Date | null;
  created_at: Date;
}

/** Which side of the stored row a user is. */
type Side = 1 | 2;
const sideOf = (row: MatchRecord, userId: number): Side | null =>
  row.user1_id === userId ? 1 : row.user2_id === userId ? 2 : null;
const otherOf = (row: MatchRecord, userId: number) => (row.user1_id === userId ? row.user2_id : row.user1_id);
/** The per-side columns of a row, as the given user's own and the other person's. */
function sides(row: MatchRecord, viewerId: number) {
  const mine = sideOf(row, viewerId) === 1;
  return {
    liked: mine ? row.user1_liked : row.user2_liked,
    otherLiked: mine ? row.user2_liked : row.user1_liked,
    favorite: mine ? row.user1_favorite : row.user2_favorite,
    seenAt: mine ? row.user1_seen_at : row.user2_seen_at,
  };
}

/**
 * A match row as `viewerId` sees it: user1Id is always the viewer, the flags are the viewer's own.
 * The other person's like shows only once the match is mutual: a pass answered with "they liked
 * you" would tell the viewer what the other person never chose to share.
 */
export function toMatchView(row: MatchRecord, viewerId: number, matchedUser: PublicUser): MatchView {
  const mutual = row.mutual_at != null;
  const s = sides(row, viewerId);
  return {
    id: row.id,
    user1Id: viewerId,
    user2Id: otherOf(row, viewerId),
    intent: row.intent,
    matchPercentage: row.match_percentage,
    user1Liked: s.liked,
    user2Liked: mutual && s.otherLiked,
    createdAt: new Date(row.created_at).toISOString(),
    isMutualMatch: mutual,
    isFavorite: s.favorite,
    hasUnreadMessages: mutual && row.unmatched_at == null && s.seenAt == null,
    matchedUser,
  };
}

/** The other person of the match, as they present themselves in the match's intent. */
export async function viewOf(em: EntityManager, row: MatchRecord, viewerId: number): Promise<MatchView> {
  const user = await publicUserRow(em, otherOf(row, viewerId), row.intent);
  return toMatchView(row, viewerId, toPublicUser(user, row.intent));
}

export async function isBlockedEitherWay(em: EntityManager, a: number, b: number): Promise<boolean> {
  const [row] = await sql<{ blocked: boolean }>(em, `select ${blockedEitherWay('?', '?')} as blocked`, [a, b, b, a]);
  return row?.blocked === true;
}

/**
 * The `matchParty` rule (shared/src/api/endpoint.ts): a mutual, live match the viewer is a party
 * of, with no block either way. Anything else, a like that is not mutual included, is reported as
 * not found, so nobody learns who liked them or whether a match id exists.
 */
export async function visibleMatch(em: EntityManager, matchId: number, viewerId: number): Promise<MatchRecord> {
  const [row] = await sql<MatchRecord>(
    em,
    `select m.* from matches m
      where m.id = ? and (m.user1_id = ? or m.user2_id = ?)
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [matchId, viewerId, viewerId],
  );
  if (!row) throw notFound('Match not found.');
  return row;
}

/** The precomputed match % (docs/matching.md); 0 when the pair is not among each other's candidates. */
async function storedScore(tx: EntityManager, a: number, b: number): Promise<number> {
  const [row] = await sql<{ score: number }>(
    tx,
    `select score from feed_candidates where (user_id = ? and candidate_id = ?) or (user_id = ? and candidate_id = ?)
      order by score desc limit 1`,
    [a, b, b, a],
  );
  return row ? Number(row.score) : 0;
}

export interface DecideResult {
  row: MatchRecord;
  /** True only for the one request whose like turned the pair mutual. */
  becameMutual: boolean;
  otherId: number;
}

/**
 * Records a like or pass by `actorId` on `targetId` in `intent`, in one transaction on one
 * connection. The pair lock serializes it with every other like and block of the same two people,
 * so of two simultaneous likes exactly one sees the pair become mutual, and a block either comes
 * first (this like is a 404) or sees the result. The target must exist, be active in the intent
 * and not be blocked either way; otherwise 404, whichever reason (nobody learns which).
 */
export async function decide(
  em: EntityManager,
  actorId: number,
  targetId: number,
  intent: Intent,
  liked: boolean,
): Promise<DecideResult> {
  return em.transactional(async (tx) => {
    await lockPair(tx, actorId, targetId);
    const [target] = await sql<{ is_demo: boolean }>(
      tx,
      `select u.is_demo from users u
         join user_profiles pr on pr.user_id = u.id and pr.intent = ? and pr.active
        where u.id = ? and not ${blockedEitherWay('?', '?')}`,
      [intent, targetId, actorId, targetId, targetId, actorId],
    );
    if (!target) throw notFound('User not found.');
    const score = await storedScore(tx, actorId, targetId);
    const a = Math.min(actorId, targetId);
    const b = Math.max(actorId, targetId);
    const me = actorId === a ? 1 : 2;
    const them = me === 1 ? 2 : 1;
    const demoLikesBack = liked && target.is_demo;

    await sql(
      tx,
      `insert into matches (user1_id, user2_id, intent, match_percentage, created_at)
       values (?, ?, ?, ?, now()) on conflict (user1_id, user2_id, intent) do nothing`,
      [a, b, intent, score],
    );
    const [current] = await sql<MatchRecord>(
      tx,
      'select * from matches where user1_id = ? and user2_id = ? and intent = ? for update',
      [a, b, intent],
    );
    if (!current) throw notFound('User not found.');
    if (current.unmatched_at != null) throw conflict('You are no longer matched with this person in this intent.');
    const otherLiked = demoLikesBack || (me === 1 ? current.user2_liked : current.user1_liked);
    const becameMutual = current.mutual_at == null && liked && otherLiked;
    const [row] = await sql<MatchRecord>(
      tx,
      `update matches set user${me}_liked = ?, user${me}_acted = true,
              user${them}_liked = ?, user${them}_acted = user${them}_acted or ?,
              match_percentage = ?,
              mutual_at = case when ? then now() else mutual_at end
        where id = ? returning *`,
      [liked, otherLiked, demoLikesBack, score, becameMutual, current.id],
    );
    return { row: row as MatchRecord, becameMutual, otherId: targetId };
  });
}

/**
 * Runs `announce` (the 'match:new' emits of a like that made a pair mutual) under the pair lock and
 * only if no block came in since the like committed. A block takes the same lock, so it either
 * committed before (nothing is announced; it already announced 'match:removed') or waits until the
 * announcement is sent, and its own 'match:removed' follows it. The blocked person never keeps a
 * match they can no longer see.
 */
export async function announceUnlessBlocked(em: EntityManager, a: number, b: number, announce: () => void) {
  await em.transactional(async (tx) => {
    await lockPair(tx, a, b);
    if (!(await isBlockedEitherWay(tx, a, b))) announce();
  });
}

/** The viewer's mutual matches in an intent: favourites first, then match % descending. */
export async function listMatches(em: EntityManager, viewerId: number, intent: Intent): Promise<MatchView[]> {
  const rows = await sql<MatchRecord & PublicUserRow>(
    em,
    `select m.*, ${PUBLIC_USER_COLUMNS},
            case when m.user1_id = ? then m.user1_favorite else m.user2_favorite end as viewer_favorite
       from matches m
       join users u on u.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
       left join user_profiles pr on pr.user_id = u.id and pr.intent = m.intent
      where (m.user1_id = ? or m.user2_id = ?) and m.intent = ?
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
      order by viewer_favorite desc, m.match_percentage desc, m.mutual_at desc, m.id`,
    [viewerId, viewerId, viewerId, viewerId, intent],
  );
  return rows.map((row) => toMatchView(row, viewerId, toPublicUser(row, intent)));
}

export async function setFavorite(
  em: EntityManager,
  row: MatchRecord,
  viewerId: number,
  isFavorite: boolean,
): Promise<MatchRecord> {
  const [updated] = await sql<MatchRecord>(
    em,
    `update matches set user${sideOf(row, viewerId)}_favorite = ? where id = ? returning *`,
    [isFavorite, row.id],
  );
  return updated as MatchRecord;
}

export async function markSeen(em: EntityManager, row: MatchRecord, viewerId: number): Promise<MatchRecord> {
  const side = sideOf(row, viewerId);
  const [updated] = await sql<MatchRecord>(
    em,
    `update matches set user${side}_seen_at = coalesce(user${side}_seen_at, now()) where id = ? returning *`,
    [row.id],
  );
  return updated as MatchRecord;
}

/** Ends the match for both people; the row stays (with both acted) so neither shows in the other's feed again. */
export async function unmatch(em: EntityManager, row: MatchRecord): Promise<MatchRecord> {
  const [updated] = await sql<MatchRecord>(
    em,
    `update matches set unmatched_at = coalesce(unmatched_at, now()), user1_acted = true, user2_acted = true
      where id = ? returning *`,
    [row.id],
  );
  return updated as MatchRecord;
}

/**
 * Blocks `blockedId` for `blockerId`, under the pair lock (see decide). Answers the pair's live
 * mutual matches, now hidden, for the 'match:removed' events.
 */
export async function block(em: EntityManager, blockerId: number, blockedId: number): Promise<MatchRecord[]> {
  return em.transactional(async (tx) => {
    await lockPair(tx, blockerId, blockedId);
    const [target] = await sql(tx, 'select id from users where id = ?', [blockedId]);
    if (!target) throw notFound('User not found.');
    const hidden = await sql<MatchRecord>(
      tx,
      `select * from matches where user1_id = ? and user2_id = ? and mutual_at is not null and unmatched_at is null`,
      [Math.min(blockerId, blockedId), Math.max(blockerId, blockedId)],
    );
    await sql(
      tx,
      `insert into blocks (blocker_id, blocked_id, created_at) values (?, ?, now())
       on conflict (blocker_id, blocked_id) do nothing`,
      [blockerId, blockedId],
    );
    return hidden;
  });
}

export async function report(em: EntityManager, reporterId: number, body: ReportBody): Promise<number> {
  const [target] = await sql(em, 'select id from users where id = ?', [body.reportedId]);
  if (!target) throw notFound('User not found.');
  if (body.matchId !== undefined) {
    const [match] = await sql<MatchRecord>(em, 'select * from matches where id = ?', [body.matchId]);
    const parties = match ? [match.user1_id, match.user2_id] : [];
    if (!parties.includes(reporterId) || !parties.includes(body.reportedId)) throw notFound('Match not found.');
  }
  const [row] = await sql<{ id: number }>(
    em,
    `insert into reports (reporter_id, reported_id, match_id, reason, details, created_at)
     values (?, ?, ?, ?, ?, now()) returning id`,
    [reporterId, body.reportedId, body.matchId ?? null, body.reason, body.details || null],
  );
  return (row as { id: number }).id;
}

/** Unread mutual matches per intent: mutual, still matched, not blocked, never opened by the user. */
export async function unreadMatchCounts(em: EntityManager, userId: number): Promise<Record<Intent, number>> {
  const rows = await sql<{ intent: Intent; n: number }>(
    em,
    `select m.intent, count(*)::int as n from matches m
      where ((m.user1_id = ? and m.user1_seen_at is null) or (m.user2_id = ? and m.user2_seen_at is null))
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
      group by m.intent`,
    [userId, userId],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as Record<Intent, number>;
  for (const row of rows) counts[row.intent] = row.n;
  return counts;
}
