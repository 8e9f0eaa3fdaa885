// Synthetic populations with planted taste communities, for the match-quality evaluation
// (scripts/eval/matching.ts). Deterministic: everything comes from one seeded PRNG. Each show has a
// feed path of its own and a title of its own (titles resolve imports to rows, docs/podcasts.md);
// the evaluation serves the feeds as RSS (feed-server.ts), so the worker reads and verifies them.
//
// Each person belongs to exactly one community (the ground truth) and lists:
// - a few shows from their community's pool (sparse: two members often share 0-3 of them),
// - chart-toppers drawn by Zipf from a global top list everyone listens to (noise),
// - a few shows from other communities' pools (cross-community listening).
// Within a pool, popularity is skewed too (a mild Zipf), so each community has a few staples.
import { hashString, mulberry32 } from '@server/core/db/seeders/demo-library';

export interface PopulationSpec {
  name: string;
  people: number;
  communities: number;
  /** Shows per community pool, [min, max] (each community draws its own size). */
  poolSize: [number, number];
  /** Zipf exponent of popularity inside a pool (0 = uniform). */
  poolSkew: number;
  /** Distinct shows a person takes from their own pool, [min, max]. */
  communityShows: [number, number];
  /** Size of the global chart-topper list. */
  topShows: number;
  /** Zipf exponent over the chart-topper list. */
  topSkew: number;
  /** Draws from the chart-topper list, [min, max] (repeats collapse, as in a real library). */
  topDraws: [number, number];
  /** Distinct shows a person takes from other communities' pools, [min, max]. */
  crossShows: [number, number];
  /** Community sizes vary: a community's weight is drawn from [1 - spread, 1 + spread]. */
  sizeSpread: number;
}

/** Three populations of increasing size and difficulty (sparser, noisier, more crossing over). */
export const POPULATION_SPECS: readonly PopulationSpec[] = [
  {
    name: 'small',
    people: 300,
    communities: 6,
    poolSize: [80, 120],
    poolSkew: 0.5,
    communityShows: [5, 10],
    topShows: 100,
    topSkew: 1,
    topDraws: [3, 6],
    crossShows: [1, 2],
    sizeSpread: 0.3,
  },
  {
    name: 'medium',
    people: 800,
    communities: 12,
    poolSize: [120, 200],
    poolSkew: 0.5,
    communityShows: [5, 10],
    topShows: 100,
    topSkew: 1,
    topDraws: [4, 8],
    crossShows: [1, 3],
    sizeSpread: 0.4,
  },
  {
    name: 'large',
    people: 2000,
    communities: 20,
    poolSize: [180, 300],
    poolSkew: 0.4,
    communityShows: [5, 9],
    topShows: 100,
    topSkew: 0.9,
    topDraws: [5, 10],
    crossShows: [2, 4],
    sizeSpread: 0.5,
  },
];

/**
 * A few dozen people for `npm test`'s smoke run (EVAL_SIZES=tiny): small, but with the same
 * structure (sparse community shows, chart-toppers, crossing over), so the targets still tell.
 */
export const TINY_SPEC: PopulationSpec = {
  name: 'tiny',
  people: 60,
  communities: 3,
  poolSize: [30, 40],
  poolSkew: 0.5,
  communityShows: [4, 8],
  topShows: 40,
  topSkew: 1,
  topDraws: [3, 6],
  crossShows: [1, 2],
  sizeSpread: 0.3,
};

export interface Show {
  /** Path of the show's feed on the evaluation's feed server, e.g. `/c3/s17.xml`. */
  path: string;
  title: string;
}

export interface Person {
  /** Arrival position (0-based): people are loaded in this order. */
  index: number;
  /** Ground truth: the person's community (0-based). */
  community: number;
  /** Distinct shows, in the order they appear in the person's OPML file. */
  shows: Show[];
}

export interface Population {
  spec: PopulationSpec;
  seed: number;
  /** In arrival order (communities interleaved at random). */
  people: Person[];
  /** Distinct shows listed by at least one person. */
  distinctShows: number;
}

export const communityShow = (community: number, show: number): Show => ({
  path: `/c${community}/s${show}.xml`,
  title: `Eval show c${community}-${show}`,
});

export const topShow = (show: number): Show => ({
  path: `/top/s${show}.xml`,
  title: `Eval show top-${show}`,
});

/** The show whose feed lives at this path, or null (the feed server answers 404). */
export function showAtPath(path: string): Show | null {
  const community = /^\/c(\d+)\/s(\d+)\.xml$/.exec(path);
  if (community) return communityShow(Number(community[1]), Number(community[2]));
  const top = /^\/top\/s(\d+)\.xml$/.exec(path);
  return top ? topShow(Number(top[1])) : null;
}

type Rng = () => number;

const between = (rng: Rng, [min, max]: [number, number]) => min + Math.floor(rng() * (max - min + 1));

/** Draws an index with probability proportional to weights[i] (binary search over the cumulative sums). */
function weightedSampler(weights: readonly number[]): (rng: Rng) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (const w of weights) {
    total += w;
    cumulative.push(total);
  }
  return (rng) => {
    const x = rng() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (x < (cumulative[mid] as number)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** Zipf over ranks 0..n-1: P(rank r) ~ 1 / (r + 1)^s. */
const zipfSampler = (n: number, s: number) => weightedSampler(Array.from({ length: n }, (_, r) => (r + 1) ** -s));

/** Distinct draws until `count` are found (or the attempts run out on a small pool). */
function distinctDraws(rng: Rng, count: number, draw: (rng: Rng) => string): string[] {
  const chosen = new Set<string>();
  for (let attempt = 0; chosen.size < count && attempt < count * 50; attempt++) chosen.add(draw(rng));
  return [...chosen];
}

export function shuffle<T>(rng: Rng, list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}

/** Builds one population; the same spec and seed always give the same people in the same order. */
export function generatePopulation(spec: PopulationSpec, seed: number): Population {
  const rng = mulberry32(hashString(`${seed}:${spec.name}:${spec.people}`));
  const communityWeights = Array.from(
    { length: spec.communities },
    () => 1 - spec.sizeSpread + 2 * spec.sizeSpread * rng(),
  );
  const pickCommunity = weightedSampler(communityWeights);
  const pools = Array.from({ length: spec.communities }, () => {
    const size = between(rng, spec.poolSize);
    return { size, pick: zipfSampler(size, spec.poolSkew) };
  });
  const pickTop = zipfSampler(spec.topShows, spec.topSkew);

  const shows = new Map<string, Show>();
  const keep = (show: Show) => {
    shows.set(show.path, show);
    return show.path;
  };
  const fromPool = (community: number) => (r: Rng) =>
    keep(communityShow(community, (pools[community] as (typeof pools)[number]).pick(r)));

  const people: Person[] = [];
  for (let index = 0; index < spec.people; index++) {
    // Drawing each person's community independently interleaves the communities in arrival order.
    const community = pickCommunity(rng);
    const own = distinctDraws(rng, between(rng, spec.communityShows), fromPool(community));
    const top = new Set<string>();
    for (let d = between(rng, spec.topDraws); d > 0; d--) top.add(keep(topShow(pickTop(rng))));
    const cross = distinctDraws(rng, between(rng, spec.crossShows), (r) => {
      let other = pickCommunity(r);
      while (other === community) other = pickCommunity(r);
      return fromPool(other)(r);
    });
    const paths = shuffle(rng, [...new Set([...own, ...top, ...cross])]);
    people.push({ index, community, shows: paths.map((p) => shows.get(p) as Show) });
  }
  return { spec, seed, people, distinctShows: shows.size };
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** An OPML 2.0 export of these subscriptions, as a podcast app writes it (feeds under `feedBase`). */
export function opmlDocument(shows: readonly Show[], feedBase: string): string {
  const outlines = shows.map(
    (s) => `      <outline type="rss" text="${escapeXml(s.title)}" xmlUrl="${escapeXml(feedBase + s.path)}"/>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<opml version="2.0">',
    '  <head/>',
    '  <body>',
    '    <outline text="feeds">',
    ...outlines,
    '    </outline>',
    '  </body>',
    '</opml>',
    '',
  ].join('\n');
}

/** The show's RSS feed, as a podcast host serves it: its title (the row is named from it), one episode. */
export function rssDocument(show: Show): string {
  const title = escapeXml(show.title);
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
  <channel>
    <title>${title}</title>
    <description>A synthetic show of the match-quality evaluation.</description>
    <itunes:author>PodMatch evaluation</itunes:author>
    <item><title>${title}, episode 1</title><guid>${escapeXml(show.path)}#1</guid></item>
  </channel>
</rss>
`;
}
