// The like/pass decision, match views and the mutual-match announcement: what the HTTP server and
// the worker (a demo person's delayed like-back) share. docs/matches.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type FeedSharedPodcast,
  INTENTS,
  type Intent,
  LAST_MESSAGE_PREVIEW_LENGTH,
  type LastMessage,
  type MatchView,
  type PublicUser,
  SPEC_DEMO_USERNAME,
} from '@shared/index';
import type { ArtworkUrls } from '../artwork/artwork-urls';
import type { MatchSchema } from '../db/entities';
import { blockedEitherWay, intArray, lockPair, type RowOf, sql } from '../db/sql';
import { stageJob } from '../jobs/outbox';
import { notSuspended } from '../moderation/standing';
import { stagePushes } from '../notifications/stage-push';
import { type PodcastRow, toSharedPodcast } from '../presenters/podcast.presenter';
import { PUBLIC_USER_COLUMNS, type PublicUserRow, toPublicUser } from '../presenters/user.presenter';
import type { Publisher } from '../realtime/publisher';

/** A `matches` row as stored: one per unordered pair (user1_id < user2_id) per intent. */
export type MatchRecord = RowOf<typeof MatchSchema>;

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
  lastMessage: LastMessage | null = null,
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
    lastMessage,
    readSeq: s.readSeq,
    otherReadSeq: s.otherReadSeq,
  };
}

/** A person's public columns as they present themselves in an intent (`toPublicUser`); undefined if unknown. */
export async function publicUserRowOf(
  em: EntityManager,
  userId: number,
  intent: Intent,
): Promise<PublicUserRow | undefined> {
  const [row] = await sql<PublicUserRow>(
    em,
    `select ${PUBLIC_USER_COLUMNS} from users u
       left join user_profiles pr on pr.user_id = u.id and pr.intent = ?
      where u.id = ?`,
    [intent, userId],
  );
  return row;
}

/** The person a match row names was deleted since the row was read (their account deletion raced this). */
export class PersonGoneError extends Error {}

/** A person as they present themselves in an intent (the other side of a match exists: its row references them). */
async function presentedUser(em: EntityManager, userId: number, intent: Intent): Promise<PublicUser> {
  const row = await publicUserRowOf(em, userId, intent);
  if (!row) throw new PersonGoneError(`User ${userId} of a match no longer exists`);
  return toPublicUser(row, intent);
}

/** The other person of the match, as they present themselves in the match's intent. */
export async function viewOf(
  em: EntityManager,
  row: MatchRecord,
  viewerId: number,
  artwork: ArtworkUrls,
): Promise<MatchView> {
  const otherId = otherOf(row, viewerId);
  const user = await presentedUser(em, otherId, row.intent);
  const shared = await sharedPodcastsWith(em, viewerId, [otherId], artwork);
  const last = await lastMessagesOf(em, [row.id]);
  return toMatchView(row, viewerId, user, shared.get(otherId), last.get(row.id) ?? null);
}

/** The selected columns of a match's newest message (`LAST_MESSAGE_OF`), named so they sit beside a match row. */
export interface LastMessageColumns {
  last_sender_id: number | null;
  last_text: string | null;
  last_at: Date | string | null;
}

/**
 * A lateral subquery for the newest message of match `m` (one index lookup on (match_id, seq)):
 * `left join lateral ${LAST_MESSAGE_OF} on true`.
 */
export const LAST_MESSAGE_OF = `(select sender_id as last_sender_id, left(content, ${LAST_MESSAGE_PREVIEW_LENGTH}) as last_text,
    created_at as last_at from messages where match_id = m.id order by seq desc limit 1) lm`;

/** The last message of a row that selected `LAST_MESSAGE_OF`'s columns, or null. */
export function lastMessageOf(row: LastMessageColumns): LastMessage | null {
  if (row.last_sender_id == null || row.last_text == null || row.last_at == null) return null;
  return { senderId: row.last_sender_id, text: row.last_text, createdAt: new Date(row.last_at).toISOString() };
}

/** The newest message of each of these matches (none: absent from the map). */
export async function lastMessagesOf(em: EntityManager, matchIds: number[]): Promise<Map<number, LastMessage>> {
  const rows = await sql<LastMessageColumns & { id: number }>(
    em,
    `select m.id, lm.* from matches m join lateral ${LAST_MESSAGE_OF} on true where m.id = any(?)`,
    [intArray(matchIds)],
  );
  const result = new Map<number, LastMessage>();
  for (const row of rows) {
    const last = lastMessageOf(row);
    if (last) result.set(row.id, last);
  }
  return result;
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
  artwork: ArtworkUrls,
): Promise<Map<number, SharedPodcasts>> {
  const result = new Map<number, SharedPodcasts>();
  if (otherIds.length === 0) return result;
  const rows = await sql<PodcastRow & { other_id: number; total: number }>(
    em,
    `with shared as (
       select o.other_id, p.id, p.name, p.creator, p.image_url,
              array_position(coalesce(fc.shared_podcast_ids, fc2.shared_podcast_ids), p.id) as pos
         from unnest(?::int[]) as o(other_id)
         join user_podcasts theirs on theirs.user_id = o.other_id and not theirs.hidden
         join user_podcasts mine on mine.user_id = ? and mine.podcast_id = theirs.podcast_id and not mine.hidden
         join podcasts p on p.id = theirs.podcast_id and p.verified_at is not null
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
    entry.podcasts.push(toSharedPodcast(row, artwork));
  }
  return result;
}

export async function isBlockedEitherWay(em: EntityManager, a: number, b: number): Promise<boolean> {
  const [row] = await sql<{ blocked: boolean }>(em, `select ${blockedEitherWay('?', '?')} as blocked`, [a, b, b, a]);
  return row?.blocked === true;
}

/** The precomputed match % (docs/matching.md); 0 when the pair is not among each other's candidates. */
export async function storedScore(tx: EntityManager, a: number, b: number): Promise<number> {
  const [row] = await sql<{ score: number }>(
    tx,
    `select score from feed_candidates where (user_id = ? and candidate_id = ?) or (user_id = ? and candidate_id = ?)
      order by score desc limit 1`,
    [a, b, b, a],
  );
  return row ? Number(row.score) : 0;
}

/** A decision the rules refuse: the target is gone, inactive in the intent or blocked (one answer,
 * so nobody learns which), the pair was unmatched, or (`onlyIfTheyLike`) the other side does not like. */
export type DecideRefusal = 'notFound' | 'unmatched' | 'notLiked';

export type DecideResult =
  | {
      ok: true;
      row: MatchRecord;
      /** True only for the one decision whose like turned the pair mutual. */
      becameMutual: boolean;
      otherId: number;
      /** A like on SPEC's demo user: their side was set too (an instant mutual match). */
      instantDemoMatch: boolean;
      /** A like on a demo person other than the SPEC demo user, not yet answered: they reply later. */
      demoRepliesLater: boolean;
    }
  | { ok: false; refused: DecideRefusal };

export interface DecideOptions {
  /** Like only if the other side already likes (a demo person's like-back): else refused 'notLiked'. */
  onlyIfTheyLike?: boolean;
  /**
   * When a demo person answers this like later: their like-back is staged in the job outbox with this
   * delay, in the like's transaction, so the like and its answer commit together.
   */
  demoReplyDelayMs?: number;
}

/**
 * Records a like or pass by `actorId` on `targetId` in `intent`, in one transaction on one
 * connection. The pair lock serializes it with every other like, undo and block of the same two
 * people, so of two simultaneous likes exactly one sees the pair become mutual, and a block either
 * comes first (this like is refused) or sees the result. The target must exist, be active in the
 * intent and not be blocked either way. A like on the SPEC demo user (SPEC_DEMO_USERNAME) also sets
 * their side: an instant mutual match. Other demo people answer later (demo-replies.ts).
 */
export async function decide(
  em: EntityManager,
  actorId: number,
  targetId: number,
  intent: Intent,
  liked: boolean,
  options: DecideOptions = {},
): Promise<DecideResult> {
  return em.transactional(async (tx): Promise<DecideResult> => {
    await lockPair(tx, actorId, targetId);
    const [target] = await sql<{ is_demo: boolean; username: string }>(
      tx,
      `select u.is_demo, u.username from users u
         join user_profiles pr on pr.user_id = u.id and pr.intent = ? and pr.active
        where u.id = ? and not ${blockedEitherWay('?', '?')}`,
      [intent, targetId, actorId, targetId, targetId, actorId],
    );
    if (!target) return { ok: false, refused: 'notFound' };
    const score = await storedScore(tx, actorId, targetId);
    const a = Math.min(actorId, targetId);
    const b = Math.max(actorId, targetId);
    const me = actorId === a ? 1 : 2;
    const them = me === 1 ? 2 : 1;
    const instantDemo = liked && isSpecDemoUser(target);

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
    if (!current) return { ok: false, refused: 'notFound' };
    if (current.unmatched_at != null) return { ok: false, refused: 'unmatched' };
    const theyLike = me === 1 ? current.user2_liked : current.user1_liked;
    if (options.onlyIfTheyLike && !theyLike) return { ok: false, refused: 'notLiked' };
    const otherLiked = instantDemo || theyLike;
    const becameMutual = current.mutual_at == null && liked && otherLiked;
    const [row] = await sql<MatchRecord>(
      tx,
      `update matches set user${me}_liked = ?, user${me}_acted = true,
              user${them}_liked = ?, user${them}_acted = user${them}_acted or ?,
              match_percentage = ?,
              mutual_at = case when ? then now() else mutual_at end
        where id = ? returning *`,
      [liked, otherLiked, instantDemo, score, becameMutual, current.id],
    );
    // Both people hear of the match on their devices while the app is closed (docs/notifications.md).
    if (becameMutual && row) {
      await stagePushes(tx, [row.user1_id, row.user2_id], (userId) => ({ kind: 'matches', userId, matchId: row.id }));
    }
    const demoRepliesLater = liked && target.is_demo && !otherLiked;
    if (demoRepliesLater && options.demoReplyDelayMs !== undefined) {
      await stageJob(
        tx,
        'demoLikeBack',
        { demoId: targetId, likerId: actorId, intent },
        { delayMs: options.demoReplyDelayMs },
      );
    }
    return {
      ok: true,
      row: row as MatchRecord,
      becameMutual,
      otherId: targetId,
      instantDemoMatch: instantDemo,
      demoRepliesLater,
    };
  });
}

/** SPEC section 4's one demo user, whose like-back is instant: a seeded demo person with that username. */
export const isSpecDemoUser = (user: { is_demo: boolean; username: string }) =>
  user.is_demo && user.username.toLowerCase() === SPEC_DEMO_USERNAME;

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

/**
 * Announces a pair that just became mutual: 'match:new' to both people (each their own view, every
 * tab), under the pair lock and unless blocked since (announceUnlessBlocked). `known` is a view
 * already loaded for one of them. Call it after the like committed, only when `becameMutual`. The one
 * event sent straight through the publisher rather than a unit of work's effects: sent while the lock
 * is held, so a block that follows cannot overtake it with its own 'match:removed'.
 */
export async function announceMutualMatch(
  em: EntityManager,
  publisher: Publisher,
  artwork: ArtworkUrls,
  row: MatchRecord,
  known?: MatchView,
): Promise<void> {
  const views: MatchView[] = [];
  for (const id of [row.user1_id, row.user2_id]) {
    views.push(known?.user1Id === id ? known : await viewOf(em, row, id, artwork));
  }
  await announceUnlessBlocked(em, row.user1_id, row.user2_id, () => {
    for (const view of views) publisher.emit('match:new', view, { userId: view.user1Id });
  });
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
        and exists (select 1 from users other
              where other.id = case when m.user1_id = ? then m.user2_id else m.user1_id end and ${notSuspended('other')})
      group by m.intent`,
    [userId, userId, userId],
  );
  const counts = Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as Record<Intent, number>;
  for (const row of rows) counts[row.intent] = row.n;
  return counts;
}
