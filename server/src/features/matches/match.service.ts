// Likes, passes, mutual matches, favourites, unmatch, block and report (docs/matches.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENTS, type Intent, type MatchView, type PublicUser, type ReportBody } from '@shared/index';
import { conflict, notFound } from '../../http/errors';

type Row = Record<string, unknown>;

const sql = (em: EntityManager, text: string, params: unknown[] = []) =>
  em.execute(text, params, 'all') as Promise<Row[]>;

/** Which side of the stored row (user1_id < user2_id) a user is. */
export type Side = 1 | 2;
const sideOf = (row: Row, userId: number): Side | null =>
  row.user1_id === userId ? 1 : row.user2_id === userId ? 2 : null;
const other = (side: Side): Side => (side === 1 ? 2 : 1);

const USER_COLUMNS = `u.id as u_id, u.display_name as u_display_name, u.profile_picture as u_profile_picture,
  u.intent as u_intent, u.tagline as u_tagline, u.romantic_tagline as u_romantic_tagline,
  u.platonic_tagline as u_platonic_tagline, u.professional_tagline as u_professional_tagline,
  u.video_intro_url as u_video_intro_url`;

function publicUser(row: Row): PublicUser {
  return {
    id: row.u_id as number,
    displayName: row.u_display_name as string,
    profilePicture: (row.u_profile_picture as string | null) ?? null,
    intent: row.u_intent as Intent,
    tagline: (row.u_tagline as string | null) ?? null,
    romanticTagline: (row.u_romantic_tagline as string | null) ?? null,
    platonicTagline: (row.u_platonic_tagline as string | null) ?? null,
    professionalTagline: (row.u_professional_tagline as string | null) ?? null,
    videoIntroUrl: (row.u_video_intro_url as string | null) ?? null,
  };
}

const iso = (value: unknown) => new Date(value as string | Date).toISOString();

/** A match row as `viewerId` sees it: user1Id is always the viewer, flags are the viewer's own. */
export function toMatchView(row: Row, viewerId: number, matchedUser: PublicUser): MatchView {
  const side = sideOf(row, viewerId) as Side;
  const o = other(side);
  const mutual = row.mutual_at != null;
  return {
    id: row.id as number,
    user1Id: viewerId,
    user2Id: row[`user${o}_id`] as number,
    intent: row.intent as Intent,
    matchPercentage: row.match_percentage as number,
    user1Liked: row[`user${side}_liked`] as boolean,
    user2Liked: row[`user${o}_liked`] as boolean,
    createdAt: iso(row.created_at),
    isMutualMatch: mutual,
    isFavorite: row[`user${side}_favorite`] as boolean,
    hasUnreadMessages: mutual && row.unmatched_at == null && row[`user${side}_seen_at`] == null,
    matchedUser,
  };
}

/** The other person of the match, as public fields. */
async function userOf(em: EntityManager, userId: number): Promise<PublicUser | null> {
  const [row] = await sql(em, `select ${USER_COLUMNS} from users u where u.id = ?`, [userId]);
  return row ? publicUser(row) : null;
}

export async function viewOf(em: EntityManager, row: Row, viewerId: number): Promise<MatchView> {
  const side = sideOf(row, viewerId) as Side;
  const matched = await userOf(em, row[`user${other(side)}_id`] as number);
  return toMatchView(row, viewerId, matched as PublicUser);
}

export async function isBlockedEitherWay(em: EntityManager, a: number, b: number): Promise<boolean> {
  const rows = await sql(
    em,
    `select 1 from blocks where (blocker_id = ? and blocked_id = ?) or (blocker_id = ? and blocked_id = ?) limit 1`,
    [a, b, b, a],
  );
  return rows.length > 0;
}

/**
 * A match the viewer is a party of and may still see (no block either way); anything else is
 * reported as not found, so nobody learns whether a match exists.
 */
export async function visibleMatch(em: EntityManager, matchId: number, viewerId: number): Promise<Row> {
  const [row] = await sql(em, 'select * from matches where id = ?', [matchId]);
  if (!row || !sideOf(row, viewerId)) throw notFound('Match not found.');
  if (await isBlockedEitherWay(em, row.user1_id as number, row.user2_id as number)) throw notFound('Match not found.');
  return row;
}

/** The precomputed match % (docs/matching.md); 0 when the pair is not among each other's candidates. */
async function storedScore(em: EntityManager, a: number, b: number): Promise<number> {
  const [row] = await sql(
    em,
    `select score from feed_candidates where (user_id = ? and candidate_id = ?) or (user_id = ? and candidate_id = ?)
      order by score desc limit 1`,
    [a, b, b, a],
  );
  return row ? Number(row.score) : 0;
}

export interface DecideResult {
  row: Row;
  /** True only for the one request whose like turned the pair mutual. */
  becameMutual: boolean;
  otherId: number;
}

/**
 * Records a like or pass by `actorId` on `targetId` in `intent`. The row is created if missing,
 * then locked (`for update`) and changed inside one transaction, so two simultaneous likes from
 * both sides are serialized on the row: exactly one of them sees mutual_at go from null to set.
 */
export async function decide(
  em: EntityManager,
  actorId: number,
  targetId: number,
  intent: Intent,
  liked: boolean,
): Promise<DecideResult> {
  const [target] = await sql(em, 'select id, is_demo from users where id = ?', [targetId]);
  if (!target || (await isBlockedEitherWay(em, actorId, targetId))) throw notFound('User not found.');
  const score = await storedScore(em, actorId, targetId);
  const a = Math.min(actorId, targetId);
  const b = Math.max(actorId, targetId);
  const side: Side = actorId === a ? 1 : 2;
  const o = other(side);
  const demoLikesBack = liked && target.is_demo === true;

  return em.transactional(async (tx) => {
    await sql(
      tx,
      `insert into matches (user1_id, user2_id, intent, match_percentage, created_at)
       values (?, ?, ?, ?, now()) on conflict (user1_id, user2_id, intent) do nothing`,
      [a, b, intent, score],
    );
    const [current] = await sql(
      tx,
      'select * from matches where user1_id = ? and user2_id = ? and intent = ? for update',
      [a, b, intent],
    );
    if (!current) throw notFound('User not found.');
    if (current.unmatched_at != null) throw conflict('You are no longer matched with this person in this intent.');
    const otherLiked = demoLikesBack || (current[`user${o}_liked`] as boolean);
    const becameMutual = current.mutual_at == null && liked && otherLiked;
    const [row] = await sql(
      tx,
      `update matches set user${side}_liked = ?, user${side}_acted = true,
              user${o}_liked = ?, user${o}_acted = user${o}_acted or ?,
              match_percentage = ?,
              mutual_at = case when ? then now() else mutual_at end
        where id = ? returning *`,
      [liked, otherLiked, demoLikesBack, score, becameMutual, current.id],
    );
    return { row: row as Row, becameMutual, otherId: targetId };
  });
}

/** The viewer's mutual matches in an intent: favourites first, then match % descending. */
export async function listMatches(em: EntityManager, viewerId: number, intent: Intent): Promise<MatchView[]> {
  const rows = await sql(
    em,
    `select m.*, ${USER_COLUMNS},
            case when m.user1_id = ? then m.user1_favorite else m.user2_favorite end as viewer_favorite
       from matches m
       join users u on u.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
      where (m.user1_id = ? or m.user2_id = ?) and m.intent = ?
        and m.mutual_at is not null and m.unmatched_at is null
        and not exists (select 1 from blocks b where (b.blocker_id = m.user1_id and b.blocked_id = m.user2_id)
                                                 or (b.blocker_id = m.user2_id and b.blocked_id = m.user1_id))
      order by viewer_favorite desc, m.match_percentage desc, m.mutual_at desc, m.id`,
    [viewerId, viewerId, viewerId, viewerId, intent],
  );
  return rows.map((row) => toMatchView(row, viewerId, publicUser(row)));
}

export async function setFavorite(em: EntityManager, row: Row, viewerId: number, isFavorite: boolean): Promise<Row> {
  const side = sideOf(row, viewerId) as Side;
  const [updated] = await sql(em, `update matches set user${side}_favorite = ? where id = ? returning *`, [
    isFavorite,
    row.id,
  ]);
  return updated as Row;
}

export async function markSeen(em: EntityManager, row: Row, viewerId: number): Promise<Row> {
  const side = sideOf(row, viewerId) as Side;
  const [updated] = await sql(
    em,
    `update matches set user${side}_seen_at = coalesce(user${side}_seen_at, now()) where id = ? returning *`,
    [row.id],
  );
  return updated as Row;
}

/** Ends the match for both people; the row stays (with both acted) so neither shows in the other's feed again. */
export async function unmatch(em: EntityManager, row: Row): Promise<Row> {
  const [updated] = await sql(
    em,
    `update matches set unmatched_at = coalesce(unmatched_at, now()), user1_acted = true, user2_acted = true
      where id = ? returning *`,
    [row.id],
  );
  return updated as Row;
}

/** Blocks `blockedId` for `blockerId`; answers the pair's live mutual matches (now hidden) for the events. */
export async function block(em: EntityManager, blockerId: number, blockedId: number): Promise<Row[]> {
  const [target] = await sql(em, 'select id from users where id = ?', [blockedId]);
  if (!target) throw notFound('User not found.');
  const hidden = await sql(
    em,
    `select * from matches where user1_id = ? and user2_id = ? and mutual_at is not null and unmatched_at is null`,
    [Math.min(blockerId, blockedId), Math.max(blockerId, blockedId)],
  );
  await sql(
    em,
    `insert into blocks (blocker_id, blocked_id, created_at) values (?, ?, now())
     on conflict (blocker_id, blocked_id) do nothing`,
    [blockerId, blockedId],
  );
  return hidden;
}

export async function report(em: EntityManager, reporterId: number, body: ReportBody): Promise<number> {
  const [target] = await sql(em, 'select id from users where id = ?', [body.reportedId]);
  if (!target) throw notFound('User not found.');
  if (body.matchId !== undefined) {
    const [match] = await sql(em, 'select * from matches where id = ?', [body.matchId]);
    const parties = match ? [match.user1_id, match.user2_id] : [];
    if (!parties.includes(reporterId) || !parties.includes(body.reportedId)) throw notFound('Match not found.');
  }
  const [row] = await sql(
    em,
    `insert into reports (reporter_id, reported_id, match_id, reason, details, created_at)
     values (?, ?, ?, ?, ?, now()) returning id`,
    [reporterId, body.reportedId, body.matchId ?? null, body.reason, body.details || null],
  );
  return (row as Row).id as number;
}

/** Unread mutual matches per intent: mutual, still matched, not blocked, never opened by the user. */
export async function unreadMatchCounts(em: EntityManager, userId: number): Promise<Record<Intent, number>> {
  const rows = await sql(
    em,
    `select m.intent, count(*)::int as n from matches m
      where ((m.user1_id = ? and m.user1_seen_at is null) or (m.user2_id = ? and m.user2_seen_at is null))
        and m.mutual_at is not null and m.unmatched_at is null
        and not exists (select 1 from blocks b where (b.blocker_id = m.user1_id and b.blocked_id = m.user2_id)
                                                 or (b.blocker_id = m.user2_id and b.blocked_id = m.user1_id))
      group by m.intent`,
    [userId, userId],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as Record<Intent, number>;
  for (const row of rows) counts[row.intent as Intent] = row.n as number;
  return counts;
}
