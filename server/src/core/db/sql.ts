// Raw SQL for the hand-tuned queries (feed, matching, likes), shared by server and worker.
import type { EntitySchema, Hidden, Opt } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

export type Row = Record<string, unknown>;

/**
 * A table's row as raw SQL answers it (`select *`, `returning *`), typed from its entity: every
 * column under its column name. Rows of a table are typed this way, never by a hand-written copy:
 * `RowOf<typeof MatchSchema>` for `select *`, `Pick<RowOf<...>, 'id' | 'name'>` for some columns,
 * and an inline type only for what no table holds (aggregates, computed columns).
 */
export type RowOf<Schema> =
  Schema extends EntitySchema<infer Entity, infer _Base>
    ? { [K in keyof Entity & string as ColumnName<K>]: RawValue<Exclude<Entity[K], undefined>> }
    : never;

/**
 * The column of a property: an underscore before each capital (`user1Liked` -> `user1_liked`).
 * Every entity's columns are named so (MikroORM's own rule would say `user1liked`, so such
 * properties name their column); schema.test.ts checks every property against `columnName`.
 */
export type ColumnName<Property extends string, Done extends string = ''> = Property extends `${infer C}${infer Rest}`
  ? ColumnName<Rest, `${Done}${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}`>
  : Done;

export const columnName = (property: string) => property.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A value as this connection returns it: MikroORM's PostgreSQL driver leaves timestamps as text
 * (`2026-11-26 19:23:52.123+00`: read them with `new Date(...)`), pg answers int8 as text and bytea
 * as a Buffer, and a double precision as a number (the entity types it `string | number`).
 */
type RawValue<V> = [V] extends [string | number]
  ? [string | number] extends [V]
    ? number
    : Unbranded<V>
  : V extends Date
    ? string
    : V extends bigint
      ? string
      : V extends Uint8Array
        ? Buffer
        : Unbranded<V>;

/** Without MikroORM's markers of optional (defaulted) and hidden properties. */
type Unbranded<V> = V extends Opt<infer U> ? (U extends Hidden<infer W> ? W : U) : V extends Hidden<infer W> ? W : V;

/** A row's columns under a prefix, as a join selects them (`u.id as u_id`). */
export type Prefixed<Prefix extends string, T> = { [K in keyof T & string as `${Prefix}${K}`]: T[K] };

/** Columns of a left-joined table: null when there was no row to join. */
export type LeftJoined<T> = { [K in keyof T]: T[K] | null };

/**
 * Runs one statement on this EntityManager's connection. Inside `em.transactional(tx => ...)`,
 * pass `tx`: the statement then runs in that transaction, on its connection. (A statement sent
 * through `em.getConnection().execute()` without the transaction context escapes to a second
 * pooled connection while the first is held; under load every connection ends up waiting for
 * another and the pool deadlocks.) Rows come back typed by the caller: a `RowOf` (see above).
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
