// Likes, passes, mutual matches, favourites, unmatch, block and report (docs/matches.md). The like
// decision and match views live in core/matches (the worker's demo like-backs use them too).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Intent, MatchView, ReportBody } from '@shared/index';
import { UNDO_PASS_SERVER_WINDOW_SECONDS } from '@shared/index';
import type { Redis } from 'ioredis';
import { findVisibleMatch } from '../../core/access';
import type { ArtworkUrls } from '../../core/artwork/artwork-urls';
import { blockedEitherWay, lockPair, sql } from '../../core/db/sql';
import {
  type DecideResult,
  decide as decideRecord,
  LAST_MESSAGE_OF,
  type LastMessageColumns,
  lastMessageOf,
  type MatchRecord,
  otherOf,
  sharedPodcastsWith,
  sideOf,
  toMatchView,
} from '../../core/matches/decide';
import { recomputeUser } from '../../core/matching/precompute';
import { notSuspended } from '../../core/moderation/standing';
import { PUBLIC_USER_COLUMNS, type PublicUserRow, toPublicUser } from '../../core/presenters/user.presenter';
import { conflict, notFound } from '../../http/errors';
import { hideIfManyReported } from '../moderation/actions.service';

export {
  announceMutualMatch,
  announceUnlessBlocked,
  isBlockedEitherWay,
  MATCH_SHARED_PODCASTS_MAX,
  type MatchRecord,
  otherOf,
  type SharedPodcasts,
  sharedPodcastsWith,
  sideOf,
  toMatchView,
  unreadMatchCounts,
  viewOf,
} from '../../core/matches/decide';

/**
 * A like or pass by `actorId` (core/matches/decide.ts), with refusals as HTTP errors: 404 for a
 * target that is gone, inactive in the intent or blocked either way (one answer, so nobody learns
 * which), 409 once unmatched. Whom the actor may target at all is the endpoint's access rule
 * (`decisionTarget`: mayDecideOn in core/access), checked before.
 */
export async function decide(
  em: EntityManager,
  actorId: number,
  targetId: number,
  intent: Intent,
  liked: boolean,
  options: { demoReplyDelayMs?: number } = {},
) {
  const result = await decideRecord(em, actorId, targetId, intent, liked, options);
  if (!result.ok) {
    if (result.refused === 'unmatched') throw conflict('You are no longer matched with this person in this intent.');
    throw notFound('User not found.');
  }
  return result satisfies Extract<DecideResult, { ok: true }>;
}

/** Redis key of a person's most recent pass, the only one they may take back (docs/matches.md, "Undo"). */
const lastPassKey = (userId: number) => `podmatch:last-pass:${userId}`;

/** Remembers `actorId`'s pass on `targetId` in `intent` as their most recent, for a while. */
export async function rememberPass(redis: Redis, actorId: number, targetId: number, intent: Intent, matchId: number) {
  await redis.set(
    lastPassKey(actorId),
    JSON.stringify({ targetId, intent, matchId }),
    'EX',
    UNDO_PASS_SERVER_WINDOW_SECONDS,
  );
}

/**
 * Takes back `actorId`'s most recent pass if it is the one on `targetId` in `intent`, still recent
 * and still a pass: under the pair lock (like a like), their side of the row is reset (not acted,
 * not liked), so the person is back in their feed. Anything else is 404: a like, an older pass,
 * someone else's, one already taken back.
 */
export async function undoPass(
  em: EntityManager,
  redis: Redis,
  actorId: number,
  targetId: number,
  intent: Intent,
): Promise<void> {
  const refused = () => notFound('There is no pass to undo.');
  const raw = await redis.get(lastPassKey(actorId));
  const last = raw ? (JSON.parse(raw) as { targetId: number; intent: Intent; matchId: number }) : null;
  if (!last || last.targetId !== targetId || last.intent !== intent) throw refused();
  // Only one request takes it back: the key goes away only if it is still this pass.
  if ((await redis.eval(DELETE_IF_EQUAL, 1, lastPassKey(actorId), raw as string)) !== 1) throw refused();
  await em.transactional(async (tx) => {
    await lockPair(tx, actorId, targetId);
    const [row] = await sql<MatchRecord>(tx, 'select * from matches where id = ? for update', [last.matchId]);
    const side = row ? sideOf(row, actorId) : null;
    if (!row || side === null || otherOf(row, actorId) !== targetId || row.intent !== intent) throw refused();
    const liked = side === 1 ? row.user1_liked : row.user2_liked;
    const acted = side === 1 ? row.user1_acted : row.user2_acted;
    if (liked || !acted || row.unmatched_at != null || row.mutual_at != null) throw refused();
    await sql(tx, `update matches set user${side}_acted = false, user${side}_liked = false where id = ?`, [row.id]);
  });
  // A recompute that ran while the pass stood may have left the person out of the stored candidates
  // (nothing pending with them then): compute again, so they are in the feed on the next read too.
  const [stored] = await sql(em, 'select 1 from feed_candidates where user_id = ? and candidate_id = ?', [
    actorId,
    targetId,
  ]);
  if (!stored) await recomputeUser(em.fork(), actorId);
}

const DELETE_IF_EQUAL = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * The match as the `matchParty` rule finds it (core/access), for the chat socket, whose events
 * carry a match id but pass no access rule: anything else is not found.
 */
export async function visibleMatch(em: EntityManager, matchId: number, viewerId: number): Promise<MatchRecord> {
  const row = await findVisibleMatch(em, matchId, viewerId);
  if (!row) throw notFound('Match not found.');
  return row;
}

/**
 * A page of the viewer's mutual matches in an intent: favourites first, then the newest conversation
 * (its last message, else when the match was made), each with its last message.
 */
export async function listMatches(
  em: EntityManager,
  viewerId: number,
  intent: Intent,
  page: { limit: number; offset: number },
  artwork: ArtworkUrls,
): Promise<MatchView[]> {
  const rows = await sql<MatchRecord & PublicUserRow & LastMessageColumns>(
    em,
    `select m.*, ${PUBLIC_USER_COLUMNS}, lm.*,
            case when m.user1_id = ? then m.user1_favorite else m.user2_favorite end as viewer_favorite
       from matches m
       join users u on u.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
       left join user_profiles pr on pr.user_id = u.id and pr.intent = m.intent
       left join lateral ${LAST_MESSAGE_OF} on true
      where (m.user1_id = ? or m.user2_id = ?) and m.intent = ?
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
        and ${notSuspended('u')}
      order by viewer_favorite desc, coalesce(lm.last_at, m.mutual_at) desc, m.id desc
      limit ? offset ?`,
    [viewerId, viewerId, viewerId, viewerId, intent, page.limit, page.offset],
  );
  const shared = await sharedPodcastsWith(
    em,
    viewerId,
    rows.map((row) => otherOf(row, viewerId)),
    artwork,
  );
  return rows.map((row) =>
    toMatchView(row, viewerId, toPublicUser(row, intent), shared.get(otherOf(row, viewerId)), lastMessageOf(row)),
  );
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

/** The reported person's messages kept with a report: their latest in the reported match. */
export const REPORTED_MESSAGES_KEPT = 100;

/**
 * Records a report, once per reporter and person: reporting the same person again changes nothing
 * (and still succeeds), so nobody inflates the count against someone by repeating it. With the
 * report goes what moderation needs once either account is gone (docs/privacy.md, "Reports"): the
 * reported person's display name and, for a reported match, the text of their messages in it, as
 * they are now. One transaction: a report is never stored without its evidence.
 */
export async function report(em: EntityManager, reporterId: number, body: ReportBody): Promise<void> {
  await em.transactional(async (tx) => {
    let match: MatchRecord | undefined;
    if (body.matchId !== undefined) {
      [match] = await sql<MatchRecord>(tx, 'select * from matches where id = ?', [body.matchId]);
      const parties = match ? [match.user1_id, match.user2_id] : [];
      if (!parties.includes(reporterId) || !parties.includes(body.reportedId)) throw notFound('Match not found.');
    }
    // The profile as the reporter saw it: in the match's intent, else the reporter's own.
    const [target] = await sql<{ display_name: string; profile: Record<string, unknown> }>(
      tx,
      `select u.display_name, json_build_object(
                'displayName', coalesce(pr.display_name, u.display_name), 'tagline', coalesce(pr.tagline, u.tagline),
                'profilePicture', coalesce(pr.profile_picture, u.profile_picture), 'intent', seen.intent) as profile
         from users u
         join (select coalesce(?::text, v.intent::text) as intent from users v where v.id = ?) seen on true
         left join user_profiles pr on pr.user_id = u.id and pr.intent::text = seen.intent
        where u.id = ?`,
      [match?.intent ?? null, reporterId, body.reportedId],
    );
    if (!target) throw notFound('User not found.');
    const [stored] = await sql<{ id: number }>(
      tx,
      `insert into reports (reporter_id, reported_id, reported_display_name, reported_profile, match_id, reason, details, created_at)
       values (?, ?, ?, ?, ?, ?, ?, now()) on conflict (reporter_id, reported_id) do nothing returning id`,
      [
        reporterId,
        body.reportedId,
        target.display_name,
        JSON.stringify(target.profile),
        body.matchId ?? null,
        body.reason,
        body.details || null,
      ],
    );
    if (stored) await hideIfManyReported(tx, body.reportedId, body.reason);
    if (!stored || body.matchId === undefined) return;
    await sql(
      tx,
      `insert into report_messages (report_id, seq, content, sent_at)
       select ?, seq, content, created_at from (
         select seq, content, created_at from messages where match_id = ? and sender_id = ?
          order by seq desc limit ?) latest
       order by seq`,
      [stored.id, body.matchId, body.reportedId, REPORTED_MESSAGES_KEPT],
    );
  });
}
