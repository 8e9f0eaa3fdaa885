// Raw SQL for the hand-tuned queries (feed, matching, likes), shared by server and worker.
import type { EntityManager } from '@mikro-orm/postgresql';

export type Row = Record<string, unknown>;

/**
 * Runs one statement on this EntityManager's connection. Inside `em.transactional(tx => ...)`,
 * pass `tx`: the statement then runs in that transaction, on its connection. (A statement sent
 * through `em.getConnection().execute()` without the transaction context escapes to a second
 * pooled connection while the first is held; under load every connection ends up waiting for
 * another and the pool deadlocks.) Rows come back typed by the caller's row interface.
 */
export function sql<T extends object = Row>(em: EntityManager, text: string, params: readonly unknown[] = []) {
  return em.execute(text, [...params], 'all') as Promise<T[]>;
}

/** A Postgres int[] literal for a list of integers (bound as one parameter). */
export const intArray = (ids: Iterable<number>) => `{${[...ids].map((n) => Math.trunc(n)).join(',')}}`;

/**
 * SQL condition: a block exists between the two users, in either direction. Two subqueries, each
 * one probe of the unique (blocker_id, blocked_id) index. `a` and `b` are SQL expressions
 * (columns or `?` placeholders; with placeholders, bind a, b, b, a in that order).
 */
export const blockedEitherWay = (a: string, b: string) =>
  `(exists (select 1 from blocks bl where bl.blocker_id = ${a} and bl.blocked_id = ${b})
    or exists (select 1 from blocks bl where bl.blocker_id = ${b} and bl.blocked_id = ${a}))`;

/**
 * Serializes every change to one pair of people (likes in any intent, blocks) until the end of
 * the transaction: a like and a block racing each other cannot both read the state before the
 * other. One bigint key per unordered pair (ids fit 31 bits), in a key space of its own (the
 * two-int advisory keys used elsewhere never collide with it).
 */
export async function lockPair(tx: EntityManager, a: number, b: number): Promise<void> {
  await sql(tx, 'select pg_advisory_xact_lock(?::bigint)', [pairKey(a, b).toString()]);
}

const pairKey = (a: number, b: number) => BigInt(Math.min(a, b)) * 2n ** 31n + BigInt(Math.max(a, b));

/** lockPair for `userId` with each of `others`, taken in key order so two such calls cannot deadlock. */
export async function lockPairsOf(tx: EntityManager, userId: number, others: number[]): Promise<void> {
  const keys = [...new Set(others.map((other) => pairKey(userId, other)))].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  for (const key of keys) await sql(tx, 'select pg_advisory_xact_lock(?::bigint)', [key.toString()]);
}
