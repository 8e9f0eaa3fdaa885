// Chat messages: the send (one transaction, one connection, idempotent per clientId), pages of a
// conversation by seq, and read receipts (docs/chat.md).
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Message } from '@shared/index';
import { blockedEitherWay, sql } from '../../core/db/sql';
import { conflict, notFound } from '../../http/errors';
import { type MatchRecord, otherOf, sideOf } from '../matches/match.service';

/** A `messages` row as stored. */
export interface MessageRow {
  id: number;
  match_id: number;
  sender_id: number;
  content: string;
  seq: number;
  client_id: string | null;
  created_at: Date;
}

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    matchId: row.match_id,
    senderId: row.sender_id,
    content: row.content,
    seq: row.seq,
    clientId: row.client_id,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export interface SendInput {
  matchId: number;
  content: string;
  /** The sender's own id for this send (a UUID): a repeat answers the stored message. */
  clientId?: string | undefined;
}

export interface StoredMessage {
  message: Message;
  /** False when this clientId was already stored: nothing new was written. */
  created: boolean;
  recipientId: number;
  /** The send moved the sender's own read mark (they had unread messages): their badge changed. */
  senderReadMoved: boolean;
}

type LockedMatch = Pick<
  MatchRecord,
  | 'id'
  | 'user1_id'
  | 'user2_id'
  | 'last_message_seq'
  | 'user1_read_seq'
  | 'user2_read_seq'
  | 'user1_seen_at'
  | 'user2_seen_at'
>;

/**
 * Stores a message, in ONE transaction on ONE connection:
 * 1. lock the match row (`for update`), checking in the same query that the sender is a party, the
 *    match is mutual, not unmatched and not blocked either way; otherwise 404 (whichever reason);
 * 2. in one statement, which reads with a snapshot taken after the lock was granted (READ
 *    COMMITTED), so it sees whatever committed while this send waited for the row: a block that
 *    came in meanwhile (a block locks the pair's match rows, match.service.ts `block`) is a 404;
 *    a message with this (sender, clientId) is answered as it is (idempotent: no new row, no new
 *    seq); otherwise `last_message_seq` goes up by one and the message gets it.
 * Sends of one match therefore get 1, 2, 3... in commit order, with no gap and no duplicate, and
 * `created_at` is the time of the insert under the lock, so it never goes down as seq goes up. The
 * sender's own read mark moves to their message (replying reads the conversation), so every
 * message after a person's read seq is the other person's (match.service.ts `isUnread`).
 */
export async function storeMessage(em: EntityManager, senderId: number, input: SendInput): Promise<StoredMessage> {
  const clientId = input.clientId ?? null;
  try {
    return await em.transactional(async (tx) => {
      const [match] = await sql<LockedMatch>(
        tx,
        `select m.id, m.user1_id, m.user2_id, m.last_message_seq, m.user1_read_seq, m.user2_read_seq,
                m.user1_seen_at, m.user2_seen_at
           from matches m
          where m.id = ? and (m.user1_id = ? or m.user2_id = ?)
            and m.mutual_at is not null and m.unmatched_at is null
            and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
          for update of m`,
        [input.matchId, senderId, senderId],
      );
      if (!match) throw notFound('Match not found.');
      const side = sideOf(match, senderId) as 1 | 2;
      const recipientId = otherOf(match, senderId);
      const [row] = await sql<MessageRow & { created: boolean }>(
        tx,
        `with blocked as (select ${blockedEitherWay('?', '?')} as yes),
         existing as (select * from messages where sender_id = ? and client_id = ?::uuid),
         bumped as (
           update matches
              set last_message_seq = last_message_seq + 1,
                  user${side}_read_seq = last_message_seq + 1,
                  user${side}_seen_at = coalesce(user${side}_seen_at, now())
            where id = ? and not (select yes from blocked) and not exists (select 1 from existing)
           returning last_message_seq
         ),
         inserted as (
           insert into messages (match_id, sender_id, content, seq, client_id, created_at)
           select ?, ?, ?, last_message_seq, ?::uuid, clock_timestamp() from bumped
           returning *
         )
         select inserted.*, true as created from inserted
         union all
         select existing.*, false as created from existing where not (select yes from blocked)`,
        [
          senderId,
          recipientId,
          recipientId,
          senderId,
          senderId,
          clientId,
          match.id,
          match.id,
          senderId,
          input.content,
          clientId,
        ],
      );
      // No row: a block committed while this send waited for the match row.
      if (!row) throw notFound('Match not found.');
      if (row.match_id !== match.id) throw clientIdTaken();
      const readSeq = side === 1 ? match.user1_read_seq : match.user2_read_seq;
      const seenAt = side === 1 ? match.user1_seen_at : match.user2_seen_at;
      return {
        message: toMessage(row),
        created: row.created,
        recipientId,
        senderReadMoved: row.created && (seenAt == null || match.last_message_seq > readSeq),
      };
    });
  } catch (error) {
    // The same clientId sent at the same moment for two different matches (two row locks).
    if (error instanceof UniqueConstraintViolationException) throw clientIdTaken();
    throw error;
  }
}

const clientIdTaken = () => conflict('This clientId was already used for another message.');

export interface PageQuery {
  before?: number | undefined;
  after?: number | undefined;
  limit: number;
}

/**
 * A page of one match's messages, always oldest first: without `before`/`after` the newest
 * `limit`; `before` = the `limit` just older than that seq (scrolling up); `after` = the first
 * `limit` newer than that seq (catch-up: the client asks again from the last seq it got until a
 * page comes back short). Every query is a range of the unique (match_id, seq) index.
 */
export async function listMessages(em: EntityManager, matchId: number, page: PageQuery): Promise<MessageRow[]> {
  if (page.after !== undefined) {
    return sql<MessageRow>(em, 'select * from messages where match_id = ? and seq > ? order by seq limit ?', [
      matchId,
      page.after,
      page.limit,
    ]);
  }
  const rows = await sql<MessageRow>(
    em,
    `select * from messages where match_id = ? and seq < ? order by seq desc limit ?`,
    [matchId, page.before ?? 2_147_483_647, page.limit],
  );
  return rows.reverse();
}

export interface ReadResult {
  row: MatchRecord;
  /** The reader's read seq moved forward (a receipt to announce). */
  readMoved: boolean;
  /** The read seq moved or the match was opened for the first time: the reader's unread mark changed. */
  changed: boolean;
  readSeq: number;
}

/**
 * Read receipts: the reader has read up to `seq` (never beyond the newest message, never
 * backwards), and has opened the match (`seen_at`, the unread mark of a new match). `match` is a
 * match the reader may see (the `matchParty` rule, or the same check for a socket event).
 */
export async function markRead(em: EntityManager, match: MatchRecord, readerId: number, seq: number) {
  const side = sideOf(match, readerId);
  if (!side) throw notFound('Match not found.');
  return em.transactional(async (tx): Promise<ReadResult> => {
    const [before] = await sql<{ read_seq: number; seen: boolean }>(
      tx,
      `select user${side}_read_seq as read_seq, user${side}_seen_at is not null as seen from matches where id = ? for update`,
      [match.id],
    );
    const [row] = await sql<MatchRecord>(
      tx,
      `update matches
          set user${side}_read_seq = greatest(user${side}_read_seq, least(?, last_message_seq)),
              user${side}_seen_at = coalesce(user${side}_seen_at, now())
        where id = ? returning *`,
      [seq, match.id],
    );
    if (!before || !row) throw notFound('Match not found.');
    const readSeq = side === 1 ? row.user1_read_seq : row.user2_read_seq;
    const readMoved = readSeq !== before.read_seq;
    return { row, readMoved, changed: readMoved || !before.seen, readSeq };
  });
}

/** Everyone with whom the user has a live mutual match (any intent, no block): who hears their presence. */
export async function livePartners(em: EntityManager, userId: number): Promise<number[]> {
  const rows = await sql<{ other_id: number }>(
    em,
    `select distinct case when m.user1_id = ? then m.user2_id else m.user1_id end as other_id
       from matches m
      where (m.user1_id = ? or m.user2_id = ?)
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [userId, userId, userId],
  );
  return rows.map((row) => row.other_id);
}
