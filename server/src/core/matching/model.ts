// The matching model: the listener counts and population every stored score was computed with. The full recompute builds and publishes it; one-person recomputes reuse it, so
// their scores are comparable with everyone else's. One row in `matching_model`, cached per process
// by version. See docs/matching.md ("Freshness").
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { MatchingModelSchema } from '../db/entities';
import { type RowOf, sql } from '../db/sql';
import type { Rarity } from './taste-vector';

export interface MatchingModel {
  version: number;
  /** People with at least one visible show when the model was built. */
  users: number;
  /** `library_changes` when the libraries were read: a higher value now means they changed since. */
  changeSeq: number;
  snapshotAt: Date;
  finishedAt: Date;
  durationMs: number;
  podcastIds: Int32Array;
  listeners: Int32Array;
}

export interface ModelView {
  model: MatchingModel | null;
  rarity: Rarity;
}

/** Before the first full recompute: every show weighs the same. */
const EMPTY: ModelView = { model: null, rarity: { users: 0, listeners: () => 0 } };

function viewOf(model: MatchingModel): ModelView {
  const index = new Map<number, number>();
  for (let i = 0; i < model.podcastIds.length; i++) index.set(model.podcastIds[i] as number, i);
  return {
    model,
    rarity: { users: model.users, listeners: (id) => model.listeners[index.get(id) ?? -1] ?? 0 },
  };
}

const bytes = (array: Int32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
const int32s = (buffer: Buffer): Int32Array => {
  const copy = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(copy).set(buffer);
  return new Int32Array(copy);
};

type ModelRow = RowOf<typeof MatchingModelSchema>;

let cached: ModelView = EMPTY;

/** The current model (cached; one small query checks its version). */
export async function currentModel(em: EntityManager): Promise<ModelView> {
  const [head] = await sql<{ version: number }>(em, 'select version from matching_model');
  if (!head) return EMPTY;
  if (cached.model?.version === head.version) return cached;
  const [row] = await sql<ModelRow>(em, 'select * from matching_model');
  if (!row) return EMPTY;
  cached = viewOf({
    version: row.version,
    users: row.users,
    changeSeq: Number(row.change_seq),
    snapshotAt: new Date(row.snapshot_at),
    finishedAt: new Date(row.finished_at),
    durationMs: row.duration_ms,
    podcastIds: int32s(row.podcast_ids),
    listeners: int32s(row.listeners),
  });
  return cached;
}

/** Publishes a new model (on the connection and inside the transaction that swaps in its scores). */
export async function saveModel(client: pg.ClientBase, model: Omit<MatchingModel, 'version'>): Promise<number> {
  const { rows } = await client.query<{ version: number }>(
    `insert into matching_model (id, version, users, change_seq, snapshot_at, finished_at, duration_ms,
                                 podcast_ids, listeners)
     values (1, 1, $1, $2, $3, $4, $5, $6, $7)
     on conflict (id) do update set version = matching_model.version + 1, users = excluded.users,
       change_seq = excluded.change_seq, snapshot_at = excluded.snapshot_at, finished_at = excluded.finished_at,
       duration_ms = excluded.duration_ms, podcast_ids = excluded.podcast_ids, listeners = excluded.listeners
     returning version`,
    [
      model.users,
      model.changeSeq,
      model.snapshotAt,
      model.finishedAt,
      model.durationMs,
      bytes(model.podcastIds),
      bytes(model.listeners),
    ],
  );
  return rows[0]?.version ?? 1;
}

/** How far `library_changes` has advanced (the value a model built now would record). */
export async function libraryChangeSeq(em: EntityManager): Promise<number> {
  const [row] = await sql<{ n: string }>(
    em,
    'select case when is_called then last_value else 0 end as n from library_changes',
  );
  return Number(row?.n ?? 0);
}
