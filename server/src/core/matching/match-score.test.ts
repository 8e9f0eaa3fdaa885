import { describe, expect, it } from 'vitest';
import { calibrate, matchScore, NO_SHARED_SHOW_CAP } from './match-score';
import {
  buildStore,
  type LibraryEntry,
  type Neighbourhood,
  type Rarity,
  rarityFromCounts,
  type TasteVector,
  tasteRow,
  tasteVector,
} from './taste-vector';

const entry = (podcastId: number, categories: string[] = ['Comedy'], extra: Partial<LibraryEntry> = {}) => ({
  podcastId,
  timesListened: 3,
  episodeCount: 10,
  hidden: false,
  categories,
  ...extra,
});

/** 1000 people; show 1 is a chart-topper everyone lists, show 2 a niche show three people list. */
const rarity: Rarity = rarityFromCounts(
  1000,
  new Map([
    [1, 950],
    [2, 3],
    [10, 40],
    [11, 40],
    [12, 40],
    [20, 40],
    [21, 40],
    [22, 40],
    [30, 40],
    [31, 40],
    [32, 40],
  ]),
);

const score = (a: LibraryEntry[], b: LibraryEntry[]) => matchScore(tasteVector(a, rarity), tasteVector(b, rarity));

describe('match score', () => {
  it('is symmetric, to the last bit, shared list included', () => {
    const a = [entry(1), entry(2, ['News']), entry(10, ['Comedy', 'Arts'], { timesListened: 40 })];
    const b = [entry(2, ['News'], { timesListened: 0 }), entry(10), entry(20, ['Science'])];
    const ab = score(a, b);
    const ba = score(b, a);
    expect(ab.raw).toBe(ba.raw);
    expect(ab.percentage).toBe(ba.percentage);
    expect(ab.shared).toEqual(ba.shared);
  });

  it('is deterministic whatever the order of library entries', () => {
    const a = [entry(1), entry(2, ['News']), entry(10)];
    const b = [entry(2, ['News']), entry(10), entry(20)];
    expect(score([...a].reverse(), b)).toEqual(score(a, b));
  });

  it('scores identical libraries 100', () => {
    const a = [entry(1), entry(2, ['News']), entry(10, ['Arts'], { timesListened: 17 }), entry(20)];
    expect(score(a, a).percentage).toBe(100);
    expect(
      score(
        a,
        a.map((e) => ({ ...e })),
      ).percentage,
    ).toBe(100);
  });

  it('scores disjoint libraries with disjoint categories 0', () => {
    const a = [entry(10, ['Comedy']), entry(11, ['Comedy'])];
    const b = [entry(20, ['History']), entry(21, ['Science'])];
    const result = score(a, b);
    expect(result.percentage).toBe(0);
    expect(result.shared).toEqual([]);
  });

  it('scores disjoint libraries in the same categories low but above zero', () => {
    const a = [entry(10, ['Comedy']), entry(11, ['Comedy'])];
    const b = [entry(20, ['Comedy']), entry(21, ['Comedy'])];
    const result = score(a, b);
    expect(result.percentage).toBeGreaterThan(0);
    expect(result.percentage).toBeLessThan(50);
  });

  it('weighs one shared niche show above one shared chart-topper', () => {
    const me = [entry(1), entry(2), entry(10), entry(11)];
    const nicheFriend = [entry(2), entry(20), entry(21), entry(22)];
    const chartFriend = [entry(1), entry(30), entry(31), entry(32)];
    const niche = score(me, nicheFriend);
    const chart = score(me, chartFriend);
    expect(niche.percentage).toBeGreaterThan(chart.percentage);
    expect(niche.shared.map((s) => s.podcastId)).toEqual([2]);
  });

  it('ignores hidden podcasts, in the score and in the explanation', () => {
    const a = [entry(2), entry(10)];
    const visible = [entry(2), entry(20)];
    const hidden = [entry(2, ['Comedy'], { hidden: true }), entry(20)];
    expect(score(a, visible).shared.map((s) => s.podcastId)).toEqual([2]);
    expect(score(a, hidden).shared).toEqual([]);
    expect(score(a, hidden).percentage).toBe(score(a, [entry(20)]).percentage);
  });

  it('orders the shared shows by contribution', () => {
    const a = [entry(1), entry(2), entry(10, ['Comedy'], { timesListened: 50 })];
    const b = [entry(1), entry(2), entry(10)];
    expect(score(a, b).shared.map((s) => s.podcastId)).toEqual([2, 10, 1]);
  });

  it('counts listening: a show both play a lot pulls the score up', () => {
    const a = [entry(10, ['Comedy'], { timesListened: 80 }), entry(11), entry(12)];
    const played = [entry(10, ['Comedy'], { timesListened: 80 }), entry(20), entry(21)];
    const barely = [entry(10, ['Comedy'], { timesListened: 0, episodeCount: 0 }), entry(20), entry(21)];
    expect(score(a, played).raw).toBeGreaterThan(score(a, barely).raw);
  });

  it('scores an empty library 0 against anything', () => {
    expect(score([], [entry(1)]).percentage).toBe(0);
    expect(score([], []).percentage).toBe(0);
  });

  it('calibrates monotonically onto 0-100', () => {
    let previous = -1;
    for (let raw = 0; raw <= 1.0001; raw += 0.01) {
      const pct = calibrate(raw);
      expect(pct).toBeGreaterThanOrEqual(previous);
      expect(pct).toBeGreaterThanOrEqual(0);
      expect(pct).toBeLessThanOrEqual(100);
      previous = pct;
    }
    expect(calibrate(0)).toBe(0);
    expect(calibrate(1)).toBe(100);
  });

  describe('taste neighbourhoods', () => {
    /** A one-person store with an owner id and a neighbourhood (user ids ascending, weights). */
    const person = (owner: number, entries: LibraryEntry[], ids: number[], weights?: number[]): TasteVector =>
      buildStore(
        [{ ...tasteRow(entries, rarity), owner }],
        (): Neighbourhood => ({
          ids,
          weights: weights ?? ids.map(() => 0.5),
        }),
      );

    it('scores identical libraries and neighbourhoods 100, though each lists the other as a neighbour', () => {
      const shows = [entry(2), entry(10), entry(11)];
      const a = person(1, shows, [2, 7, 8, 9], [0.9, 0.5, 0.4, 0.3]);
      const b = person(2, shows, [1, 7, 8, 9], [0.9, 0.5, 0.4, 0.3]);
      expect(matchScore(a, b).percentage).toBe(100);
    });

    it('ranks a shared show with the same neighbours above the same shared show with other neighbours', () => {
      const me = person(1, [entry(10), entry(20), entry(21)], [5, 6, 7, 8]);
      const sameCommunity = person(2, [entry(10), entry(30), entry(31)], [5, 6, 7, 9]);
      const elsewhere = person(3, [entry(10), entry(30), entry(31)], [40, 41, 42, 43]);
      const close = matchScore(me, sameCommunity);
      const far = matchScore(me, elsewhere);
      expect(close.shared).toEqual(far.shared);
      expect(close.raw).toBeGreaterThan(far.raw);
    });

    it('never makes someone who shares no show more than a weak match', () => {
      const me = person(1, [entry(10), entry(11)], [5, 6, 7]);
      const stranger = person(2, [entry(20), entry(21)], [5, 6, 7]);
      const result = matchScore(me, stranger);
      expect(result.shared).toEqual([]);
      expect(result.raw).toBeLessThanOrEqual(NO_SHARED_SHOW_CAP);
      expect(result.percentage).toBeLessThanOrEqual(calibrate(NO_SHARED_SHOW_CAP));
      expect(calibrate(NO_SHARED_SHOW_CAP)).toBeLessThanOrEqual(20);
    });

    it('judges people without known neighbours on shows and categories alone', () => {
      const a = person(1, [entry(2), entry(10)], []);
      const b = person(2, [entry(2), entry(10)], []);
      expect(matchScore(a, b).percentage).toBe(100);
    });
  });
});
