// Chat messages: the send (one transaction, one connection, idempotent per clientId), pages of a
// conversation by seq, and read receipts (docs/chat.md).
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isMessageFlagged, type Message } from '@shared/index';
import type { MessageSchema } from '../../core/db/entities';
import { blockedEitherWay, type RowOf, sql } from '../../core/db/sql';
import { conflict, notFound } from '../../http/errors';
import { type MatchRecord, sideOf } from '../matches/match.service';

/** A `messages` row as stored. */
export type MessageRow = RowOf<typeof MessageSchema>;

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    matchId: row.match_id,
    senderId: row.sender_id,
    content: row.content,
    seq: row.seq,
    clientId: row.client_id,
    flagged: row.flagged,
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
  /** The match was read (or opened and empty) for the recipient before this message: their badge changed. */
  recipientBecameUnread: boolean;
}

/** The row chat_store_message returns: the stored message's columns and what the send did. */
type StoreOutcome = Pick<MessageRow, 'id' | 'seq' | 'client_id' | 'content' | 'created_at' | 'flagged'> & {
  outcome: 'created' | 'existing' | 'not_found' | 'client_id_taken';
  recipient_id: number;
  sender_unread_before: boolean;
  recipient_unread_before: boolean;
};

/**
 * Stores a message in ONE round trip: the database function `chat_store_message`
 * (migrations/Migration20261123180000.ts), one transaction on one connection:
 * 1. lock the match row (`for update`), checking that the sender is a party and the match is
 *    mutual and not unmatched (re-checked after waiting for the lock); otherwise 404;
 * 2. with a snapshot taken after the lock was granted, refuse a block either way, including one
 *    that committed while the send waited (a block locks the pair's match rows, match.service.ts
 *    `block`): 404, whichever reason;
 * 3. a message with this (sender, clientId) is answered as it is (idempotent: no new row, no new
 *    seq; the same clientId for another match is a 409);
 * 4. otherwise `last_message_seq` goes up by one and the message gets it, with `flagged` as the
 *    server's own word check says (the client's check only asks the sender; a flag never blocks).
 * Sends of one match therefore get 1, 2, 3... in commit order, with no gap and no duplicate, and
 * `created_at` is the time of the insert under the lock, so it never goes down as seq goes up. The
 * sender's own read mark moves to their message (replying reads the conversation), so every
 * message after a person's read seq is the other person's (match.service.ts `isUnread`).
 */
export async function storeMessage(em: EntityManager, senderId: number, input: SendInput): Promise<StoredMessage> {
  let result: StoreOutcome | undefined;
  try {
    [result] = await sql<StoreOutcome>(em, 'select * from chat_store_message(?, ?, ?, ?::uuid, ?)', [
      input.matchId,
      senderId,
      input.content,
      input.clientId ?? null,
      isMessageFlagged(input.content),
    ]);
  } catch (error) {
    // The same clientId sent at the same moment for two different matches (two row locks).
    if (error instanceof UniqueConstraintViolationException) throw clientIdTaken();
    throw error;
  }
  if (!result || result.outcome === 'not_found') throw notFound('Match not found.');
  if (result.outcome === 'client_id_taken') throw clientIdTaken();
  const created = result.outcome === 'created';
  return {
    message: toMessage({
      id: result.id,
      match_id: input.matchId,
      sender_id: senderId,
      content: result.content,
      seq: result.seq,
      client_id: result.client_id,
      flagged: result.flagged,
      created_at: result.created_at,
    }),
    created,
    recipientId: result.recipient_id,
    senderReadMoved: created && result.sender_unread_before,
    recipientBecameUnread: created && !result.recipient_unread_before,
  };
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

/** The ids of the user's live mutual matches (what a socket's typing signals may name). */
export async function liveMatchIds(em: EntityManager, userId: number): Promise<number[]> {
  const rows = await sql<{ id: number }>(
    em,
    `select m.id from matches m
      where (m.user1_id = ? or m.user2_id = ?)
        and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [userId, userId],
  );
  return rows.map((row) => row.id);
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
