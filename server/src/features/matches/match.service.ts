// Likes, passes, mutual matches, favourites, unmatch, block and report (docs/matches.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type FeedSharedPodcast,
  INTENTS,
  type Intent,
  type MatchView,
  type PublicUser,
  type ReportBody,
} from '@shared/index';
import { blockedEitherWay, intArray, lockPair, sql } from '../../core/db/sql';
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
  /** The seq of the newest message (0: none); each send increments it under this row's lock. */
  last_message_seq: number;
  /** Up to which message seq each side has read (docs/chat.md). */
  user1_read_seq: number;
  user2_read_seq: number;
}

/** Shared shows shown on a match (the contract's limit: MatchView.sharedPodcasts). */
export const MATCH_SHARED_PODCASTS_MAX = 10;

/** The shows two people both list visibly: the first few, best first, and how many in all. */
export interface SharedPodcasts {
  podcasts: FeedSharedPodcast[];
  count: number;
}
const noSharedPodcasts: SharedPodcasts = { podcasts: [], count: 0 };

/** Which side of the stored row a user is. */
type Side = 1 | 2;
export const sideOf = (row: Pick<MatchRecord, 'user1_id' | 'user2_id'>, userId: number): Side | null =>
  row.user1_id === userId ? 1 : row.user2_id === userId ? 2 : null;
export const otherOf = (row: Pick<MatchRecord, 'user1_id' | 'user2_id'>, userId: number) =>
  row.user1_id === userId ? row.user2_id : row.user1_id;
/** The per-side columns of a row, as the given user's own and the other person's. */
function sides(row: MatchRecord, viewerId: number) {
  const mine = sideOf(row, viewerId) === 1;
  return {
    liked: mine ? row.user1_liked : row.user2_liked,
    otherLiked: mine ? row.user2_liked : row.user1_liked,
    favorite: mine ? row.user1_favorite : row.user2_favorite,
    seenAt: mine ? row.user1_seen_at : row.user2_seen_at,
    readSeq: mine ? row.user1_read_seq : row.user2_read_seq,
    otherReadSeq: mine ? row.user2_read_seq : row.user1_read_seq,
  };
}

/**
 * Unread for the viewer: a mutual live match never opened, or with messages after the viewer's
 * read seq. A send moves the sender's own read seq to the new message (message.service.ts), so
 * every message after the read seq is the other person's.
 */
const isUnread = (row: MatchRecord, s: ReturnType<typeof sides>) =>
  row.mutual_at != null && row.unmatched_at == null && (s.seenAt == null || row.last_message_seq > s.readSeq);

/**
 * A match row as `viewerId` sees it: user1Id is always the viewer, the flags are the viewer's own.
 * The other person's like shows only once the match is mutual: a pass answered with "they liked
 * you" would tell the viewer what the other person never chose to share.
 */
export function toMatchView(
  row: MatchRecord,
  viewerId: number,
  matchedUser: PublicUser,
  shared: SharedPodcasts = noSharedPodcasts,
): MatchView {
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
    hasUnreadMessages: isUnread(row, s),
    matchedUser,
    sharedPodcasts: shared.podcasts,
    sharedPodcastCount: shared.count,
    lastMessageSeq: row.last_message_seq,
    readSeq: s.readSeq,
    otherReadSeq: s.otherReadSeq,
  };
}

/** The other person of the match, as they present themselves in the match's intent. */
export async function viewOf(em: EntityManager, row: MatchRecord, viewerId: number): Promise<MatchView> {
  const otherId = otherOf(row, viewerId);
  const user = await publicUserRow(em, otherId, row.intent);
  const shared = await sharedPodcastsWith(em, viewerId, [otherId]);
  return toMatchView(row, viewerId, toPublicUser(user, row.intent), shared.get(otherId));
}

/**
 * The shows the viewer and each of `otherIds` both list, hidden ones never, in one query for a
 * whole list of matches: ordered by the stored explanation of the match % (feed_candidates, the
 * largest contribution first: the viewer's row, else the other person's) where it names them, then
 * by name; at most 10 each, and the count.
 */
export async function sharedPodcastsWith(
  em: EntityManager,
  viewerId: number,
  otherIds: number[],
): Promise<Map<number, SharedPodcasts>> {
  const result = new Map<number, SharedPodcasts>();
  if (otherIds.length === 0) return result;
  const rows = await sql<{
    other_id: number;
    id: number;
    name: string;
    creator: string | null;
    image_url: string | null;
    total: number;
  }>(
    em,
    `with shared as (
       select o.other_id, p.id, p.name, p.creator, p.image_url,
              array_position(coalesce(fc.shared_podcast_ids, fc2.shared_podcast_ids), p.id) as pos
         from unnest(?::int[]) as o(other_id)
         join user_podcasts theirs on theirs.user_id = o.other_id and not theirs.hidden
         join user_podcasts mine on mine.user_id = ? and mine.podcast_id = theirs.podcast_id and not mine.hidden
         join podcasts p on p.id = theirs.podcast_id
         left join feed_candidates fc on fc.user_id = ? and fc.candidate_id = o.other_id
         left join feed_candidates fc2 on fc2.user_id = o.other_id and fc2.candidate_id = ?
     ), ranked as (
       select shared.*, count(*) over (partition by other_id)::int as total,
              row_number() over (partition by other_id order by pos nulls last, name, id) as rn
         from shared
     )
     select other_id, id, name, creator, image_url, total from ranked where rn <= ? order by other_id, rn`,
    [intArray(new Set(otherIds)), viewerId, viewerId, viewerId, MATCH_SHARED_PODCASTS_MAX],
  );
  for (const row of rows) {
    let entry = result.get(row.other_id);
    if (!entry) {
      entry = { podcasts: [], count: row.total };
      result.set(row.other_id, entry);
    }
    entry.podcasts.push({ id: row.id, name: row.name, creator: row.creator, imageUrl: row.image_url });
  }
  return result;
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
  const shared = await sharedPodcastsWith(
    em,
    viewerId,
    rows.map((row) => otherOf(row, viewerId)),
  );
  return rows.map((row) => toMatchView(row, viewerId, toPublicUser(row, intent), shared.get(otherOf(row, viewerId))));
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
 * mutual matches, now hidden, for the 'match:removed' events. It also locks the pair's match rows
 * until it commits: a message send locks its match row first and checks for a block only once it
 * holds it (chat/message.service.ts), so a send either commits before the block or sees it (404).
 */
export async function block(em: EntityManager, blockerId: number, blockedId: number): Promise<MatchRecord[]> {
  return em.transactional(async (tx) => {
    await lockPair(tx, blockerId, blockedId);
    const [target] = await sql(tx, 'select id from users where id = ?', [blockedId]);
    if (!target) throw notFound('User not found.');
    const rows = await sql<MatchRecord>(
      tx,
      'select * from matches where user1_id = ? and user2_id = ? order by id for update',
      [Math.min(blockerId, blockedId), Math.max(blockerId, blockedId)],
    );
    const hidden = rows.filter((row) => row.mutual_at != null && row.unmatched_at == null);
    // The time of the block itself (taken after the locks above), not of the transaction's start.
    await sql(
      tx,
      `insert into blocks (blocker_id, blocked_id, created_at) values (?, ?, clock_timestamp())
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

/**
 * Unread mutual matches per intent: mutual, still matched, not blocked, and either never opened by
 * the user or with messages after the user's read seq (all of them the other person's: see isUnread).
 */
export async function unreadMatchCounts(em: EntityManager, userId: number): Promise<Record<Intent, number>> {
  const rows = await sql<{ intent: Intent; n: number }>(
    em,
    `select m.intent, count(*)::int as n from matches m
      where ((m.user1_id = ? and (m.user1_seen_at is null or m.last_message_seq > m.user1_read_seq))
          or (m.user2_id = ? and (m.user2_seen_at is null or m.last_message_seq > m.user2_read_seq)))
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
      group by m.intent`,
    [userId, userId],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as Record<Intent, number>;
  for (const row of rows) counts[row.intent] = row.n;
  return counts;
}
