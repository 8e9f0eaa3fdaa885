// The full recompute's inner loops, over a range of people. Pass 1: find candidates through the
// postings of their rarer shows and pick each person's taste neighbourhood. Pass 2 (once every
// neighbourhood is known): score the candidates exactly and choose what to store, as COPY text rows
// of feed_candidates. Pure code over shared memory, run in worker threads (score-people.thread.ts)
// or inline. See docs/matching.md ("Precompute").
import {
  ALL_INTENTS_MASK,
  CANDIDATE_SETTINGS,
  chooseStored,
  neighbourhoodOf,
  podcastsForPostings,
  type RankedCandidate,
  rankExactly,
  TopN,
} from './candidates';
import { calibrate, sharedPodcasts, showSimilarity } from './match-score';
import { NEIGHBOURHOOD_SIZE, type TasteStore } from './taste-vector';

/** Exclusion bit for a block either way (bits 0-2 are the intents acted on). */
export const BLOCKED = 1 << 7;

/** Everything the scoring needs, in typed arrays that worker threads share without copying. */
export interface PeopleData {
  /** Row -> user id. */
  userIds: Int32Array;
  store: TasteStore;
  /** Podcast ids ascending; a podcast's column is its index here. */
  podcastIds: Int32Array;
  /** Listeners per column. */
  listeners: Int32Array;
  /** Postings per column: rows listing it and their weight for it. */
  postStart: Int32Array;
  postRow: Int32Array;
  postWeight: Float64Array;
  /** Intents each row is active in (bit per intent). */
  active: Uint8Array;
  /** Per row, the other rows it excludes: BLOCKED or the intents it acted on. */
  exStart: Int32Array;
  exRow: Int32Array;
  exMask: Uint8Array;
  /** Pass 1 output: per row, up to CANDIDATE_SETTINGS.scored candidate rows (fixed stride) and their count. */
  candRows: Int32Array;
  candCount: Int32Array;
  /** Pass 1 output: the show similarity of each candidate (same layout as candRows). */
  candShows: Float64Array;
}

/** Pads a neighbourhood row of fixed width: sorts after every user id and weighs nothing. */
export const NO_NEIGHBOUR = 0x7fffffff;

export class PeopleScorer {
  private readonly acc: Float64Array;
  private readonly touched: Int32Array;
  private readonly column = new Map<number, number>();

  constructor(private readonly data: PeopleData) {
    this.acc = new Float64Array(data.userIds.length);
    this.touched = new Int32Array(data.userIds.length);
    for (let c = 0; c < data.podcastIds.length; c++) this.column.set(data.podcastIds[c] as number, c);
  }

  private readonly listenersOf = (podcastId: number) => this.data.listeners[this.column.get(podcastId) ?? -1] ?? 0;

  /** The rows person `u` excludes, with why (BLOCKED or the intents acted on). */
  private exclusionsOf(u: number): Map<number, number> {
    const { exStart, exRow, exMask } = this.data;
    const excluded = new Map<number, number>();
    for (let k = exStart[u] as number; k < (exStart[u + 1] as number); k++) {
      excluded.set(exRow[k] as number, exMask[k] as number);
    }
    return excluded;
  }

  /** Pass 1 for people [from, to): their candidates and neighbourhoods, into the shared arrays. */
  findCandidates(from: number, to: number): void {
    const { store, userIds, postStart, postRow, postWeight, candRows, candCount } = this.data;
    const { acc, touched } = this;
    const scored = CANDIDATE_SETTINGS.scored;
    for (let u = from; u < to; u++) {
      const excluded = this.exclusionsOf(u);
      const mineFrom = store.start[u] as number;
      const mineTo = store.start[u + 1] as number;
      let touchedCount = 0;
      for (const podcastId of podcastsForPostings(store.ids.subarray(mineFrom, mineTo), this.listenersOf)) {
        const c = this.column.get(podcastId) as number;
        let w = 0;
        for (let k = mineFrom; k < mineTo; k++) {
          if (store.ids[k] === podcastId) {
            w = store.weights[k] as number;
            break;
          }
        }
        for (let at = postStart[c] as number, end = postStart[c + 1] as number; at < end; at++) {
          const v = postRow[at] as number;
          if (v === u) continue;
          if (acc[v] === 0) touched[touchedCount++] = v;
          acc[v] = (acc[v] as number) + w * (postWeight[at] as number);
        }
      }
      const top = new TopN(scored);
      for (let t = 0; t < touchedCount; t++) {
        const v = touched[t] as number;
        const score = acc[v] as number;
        acc[v] = 0;
        const mask = excluded.get(v) ?? 0;
        if (mask & BLOCKED || (mask & ALL_INTENTS_MASK) === ALL_INTENTS_MASK) continue;
        top.push(score, v);
      }
      const rows = top.sorted().map((t) => t.key);
      const shows = rows.map((row) => showSimilarity(store, u, store, row));
      candCount[u] = rows.length;
      candRows.set(rows, u * scored);
      this.data.candShows.set(shows, u * scored);
      // Written in place: the store's neighbourhood rows have a fixed width (store.nbStart[u] = u * size).
      const nb = neighbourhoodOf(store, u, rows, (row) => userIds[row] as number, shows);
      let sq = 0;
      for (let k = 0; k < NEIGHBOURHOOD_SIZE; k++) {
        const w = k < nb.ids.length ? (nb.weights[k] as number) : 0;
        store.nbIds[u * NEIGHBOURHOOD_SIZE + k] = k < nb.ids.length ? (nb.ids[k] as number) : NO_NEIGHBOUR;
        store.nbWeights[u * NEIGHBOURHOOD_SIZE + k] = w;
        sq += w * w;
      }
      store.nbNorms[u] = Math.sqrt(sq);
    }
  }

  /** Pass 2: rows of feed_candidates for people [from, to) as COPY text, and how many rows. */
  scoreRange(from: number, to: number): { text: string; rows: number } {
    const { store, userIds, active, candRows, candCount, candShows } = this.data;
    const scored = CANDIDATE_SETTINGS.scored;
    const lines: string[] = [];
    for (let u = from; u < to; u++) {
      const excluded = this.exclusionsOf(u);
      const ranked = rankExactly(
        store,
        u,
        store,
        candRows.subarray(u * scored, u * scored + (candCount[u] as number)),
        (row) => userIds[row] as number,
        candShows.subarray(u * scored, u * scored + (candCount[u] as number)),
      );
      const stored = chooseStored(
        ranked,
        (c) => active[c.row] as number,
        (c) => excluded.get(c.row) ?? 0,
      );
      const uid = userIds[u] as number;
      for (const c of stored) lines.push(copyLine(uid, c, sharedIds(store, u, c.row)));
    }
    return { text: lines.length > 0 ? `${lines.join('\n')}\n` : '', rows: lines.length };
  }
}

/** The stored explanation: up to `sharedKept` shared shows, largest contribution first. */
export function sharedIds(store: TasteStore, a: number, b: number): number[] {
  return sharedPodcasts(store, a, store, b)
    .slice(0, CANDIDATE_SETTINGS.sharedKept)
    .map((s) => s.podcastId);
}

/** One feed_candidates row in COPY text format (user_id, candidate_id, score, raw, shared_podcast_ids). */
function copyLine(userId: number, c: RankedCandidate, shared: number[]): string {
  return `${userId}\t${c.userId}\t${calibrate(c.raw)}\t${c.raw}\t{${shared.join(',')}}`;
}
