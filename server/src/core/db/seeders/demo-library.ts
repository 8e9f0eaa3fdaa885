// Deterministic demo libraries and episodes. Everything is derived from a seeded PRNG (per person,
// per show), so every fresh install gets the same data, and dates are offsets from one `now`.
import { INTENTS, type Intent } from '@shared/index';
import type { DemoPersonSpec } from './data/demo-people';
import type { CatalogPodcast, PodcastCategory } from './data/podcast-catalog';

const DAY_MS = 24 * 60 * 60 * 1000;

/** mulberry32: a tiny, fast 32-bit PRNG; good enough for demo data, and reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the UTF-16 code units: a stable seed from a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const rngFor = (key: string) => mulberry32(hashString(key));
const between = (rng: () => number, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

/**
 * Which intents a demo person appears in: always their primary intent; every third person (by
 * position in DEMO_PEOPLE) also the next intent in INTENTS order, and every sixth person all three.
 */
export function activeIntents(primary: Intent, position: number): Set<Intent> {
  if (position % 6 === 0) return new Set(INTENTS);
  const active = new Set<Intent>([primary]);
  if (position % 3 === 0) active.add(INTENTS[(INTENTS.indexOf(primary) + 1) % INTENTS.length]!);
  return active;
}

// ---------------------------------------------------------------- episodes

export interface DemoEpisode {
  guid: string;
  title: string;
  description: string;
  episodeNumber: number;
  publishedAt: Date;
  durationSeconds: number;
}

const TOPICS: Record<PodcastCategory, string[]> = {
  Comedy: [
    'the worst wedding toast',
    'airport etiquette',
    'a haunted timeshare',
    'our first jobs',
    'group chats',
    'the office party',
    'a terrible road trip',
    'childhood snacks',
  ],
  News: [
    'the week in review',
    'the housing squeeze',
    'a tense summit',
    'the price of eggs',
    'the election map',
    'a heat wave',
    'the budget fight',
    'a court ruling',
  ],
  'True Crime': [
    'the missing hiker',
    'a cold case reopened',
    'the lakeside house',
    'a forged will',
    'the night shift',
    'an unlikely witness',
    'the last phone call',
    'the art heist',
  ],
  'Society & Culture': [
    'strangers on a train',
    'why we gossip',
    'a family secret',
    'the first apartment',
    'learning to apologise',
    'small towns',
    'the group project',
    'a letter never sent',
  ],
  Business: [
    'pricing power',
    'a founder’s worst year',
    'the supply chain',
    'hiring the first ten',
    'the subscription trap',
    'a hostile takeover',
    'bootstrapping',
    'the IPO window',
  ],
  Technology: [
    'the state of AI agents',
    'passwords and passkeys',
    'a data breach explained',
    'the new phones',
    'open source funding',
    'the cloud bill',
    'right to repair',
    'databases at scale',
  ],
  Science: [
    'the deep sea',
    'why we sleep',
    'black holes',
    'octopus minds',
    'the microbiome',
    'a new exoplanet',
    'how vaccines work',
    'the physics of coffee',
  ],
  History: [
    'the fall of a republic',
    'a forgotten queen',
    'the printing press',
    'the longest siege',
    'a plague year',
    'the spice trade',
    'the first marathon',
    'a revolution begins',
  ],
  'Health & Fitness': [
    'sleep and recovery',
    'zone 2 training',
    'protein myths',
    'habit stacking',
    'stress and the body',
    'a morning routine',
    'breathing',
    'strength after forty',
  ],
  Education: [
    'learning how to learn',
    'the art of asking questions',
    'deep work',
    'memory palaces',
    'reading more',
    'better conversations',
    'changing your mind',
    'ten words a day',
  ],
  Sports: [
    'the title race',
    'a trade deadline special',
    'the greatest comeback',
    'mailbag',
    'season preview',
    'the draft',
    'an underdog story',
    'the rivalry',
  ],
  Arts: [
    'a conversation with a novelist',
    'the making of a museum',
    'a poem for Monday',
    'the kitchen table',
    'an illustrator’s notebook',
    'the design of signs',
    'live from the stage',
    'a short story',
  ],
  'TV & Film': [
    'a cult classic',
    'the awards race',
    'the perfect heist movie',
    'a finale revisited',
    'behind the script',
    'the summer blockbuster',
    'a director’s cut',
    'best of the year',
  ],
  Music: [
    'the making of a hit',
    'the bridge that changed everything',
    'a debut album',
    'the producer’s chair',
    'live at a small venue',
    'one-hit wonders',
    'a song from 1994',
    'the drum break',
  ],
  'Religion & Spirituality': [
    'day of rest',
    'forgiveness',
    'a psalm of thanks',
    'the practice of stillness',
    'letting go',
    'hope in hard times',
    'gratitude',
    'a guided meditation',
  ],
  'Kids & Family': [
    'why is the sky blue',
    'the brave little boat',
    'how bees talk',
    'dinosaur detectives',
    'bedtime on the moon',
    'big feelings',
    'the sleepy dragon',
    'volcanoes',
  ],
  Leisure: [
    'a new campaign begins',
    'the garden in autumn',
    'road trip gear',
    'the best co-op games',
    'a slow travel guide',
    'the car that started it all',
    'listener questions',
    'the finale session',
  ],
  Fiction: [
    'the signal',
    'a door in the basement',
    'the lighthouse keeper',
    'static',
    'the last broadcast',
    'a new tenant',
    'the archive',
    'the long road home',
  ],
  Government: [
    'the week at the court',
    'a filibuster explained',
    'oral arguments recap',
    'the budget process',
    'agency rules',
    'a landmark case',
    'ethics rules',
    'the new term',
  ],
};

const TITLE_PATTERNS = [
  (topic: string) => capitalise(topic),
  (topic: string) => `Inside ${topic}`,
  (topic: string) => `What we got wrong about ${topic}`,
  (topic: string) => `${capitalise(topic)}, part 2`,
  (topic: string) => `Listener questions: ${topic}`,
];

function capitalise(text: string): string {
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** How many episodes a show has published; a stable figure per show. */
export function showEpisodeCount(show: CatalogPodcast): number {
  const rng = rngFor(`count:${show.name}`);
  return between(rng, 40, show.tier <= 2 ? 1800 : 600);
}

/** The most recent `count` episodes of a show, newest first, published before `now`. */
export function demoEpisodes(show: CatalogPodcast, now: Date, count = 5): DemoEpisode[] {
  const rng = rngFor(`episodes:${show.name}`);
  const total = showEpisodeCount(show);
  const topics = TOPICS[show.category];
  // Daily news shows publish daily; most others weekly.
  const cadenceDays = show.category === 'News' ? 1 : between(rng, 0, 3) === 0 ? 3 : 7;
  let published = now.getTime() - between(rng, 6, 60) * 60 * 60 * 1000;
  // Distinct topics (a seeded shuffle), so the titles are distinct too.
  const order = topics.map((topic) => ({ topic, key: rng() })).sort((x, y) => x.key - y.key);
  const episodes: DemoEpisode[] = [];
  for (let i = 0; i < count; i++) {
    const topic = order[i % order.length]!.topic;
    const pattern = TITLE_PATTERNS[between(rng, 0, TITLE_PATTERNS.length - 1)]!;
    const episodeNumber = total - i;
    episodes.push({
      guid: `podmatch-demo-${episodeNumber}`,
      title: pattern(topic),
      description: `${show.creator} talk through ${topic} with a guest, and what it means for the rest of us.`,
      episodeNumber,
      publishedAt: new Date(published),
      durationSeconds: between(rng, show.category === 'News' ? 12 : 25, show.category === 'News' ? 35 : 110) * 60,
    });
    published -= cadenceDays * DAY_MS + between(rng, -3, 3) * 60 * 60 * 1000;
  }
  // Titles must be distinct so a library entry's lastEpisode names exactly one episode.
  const seen = new Set<string>();
  for (const episode of episodes) {
    if (seen.has(episode.title)) episode.title = `${episode.title} (#${episode.episodeNumber})`;
    seen.add(episode.title);
  }
  return episodes;
}

// ---------------------------------------------------------------- libraries

export interface DemoLibraryEntry {
  show: CatalogPodcast;
  timesListened: number;
  episodeCount: number;
  lastListened: Date;
  lastEpisode: string;
  hidden: boolean;
  addedAt: Date;
}

/** Picks from `pool` with probability proportional to a Zipf weight of each show's rank. */
function zipfPicker(pool: readonly CatalogPodcast[], exponent: number) {
  const cumulative: number[] = [];
  let sum = 0;
  for (const show of pool) {
    sum += 1 / (show.rank + 6) ** exponent;
    cumulative.push(sum);
  }
  return (rng: () => number): CatalogPodcast | undefined => {
    if (pool.length === 0) return undefined;
    const target = rng() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return pool[lo];
  };
}

export class LibraryBuilder {
  private readonly byName = new Map<string, CatalogPodcast>();
  private readonly overall: (rng: () => number) => CatalogPodcast | undefined;
  private readonly byCategory = new Map<PodcastCategory, (rng: () => number) => CatalogPodcast | undefined>();
  private readonly episodes = new Map<string, DemoEpisode[]>();

  constructor(
    private readonly catalog: readonly CatalogPodcast[],
    private readonly now: Date,
  ) {
    for (const show of catalog) this.byName.set(show.name, show);
    this.overall = zipfPicker(catalog, 0.95);
  }

  /** Whether some library built so far holds this show (so it needs episodes). */
  hasEpisodes(show: CatalogPodcast): boolean {
    return this.episodes.has(show.name);
  }

  episodesOf(show: CatalogPodcast): DemoEpisode[] {
    let list = this.episodes.get(show.name);
    if (!list) {
      list = demoEpisodes(show, this.now);
      this.episodes.set(show.name, list);
    }
    return list;
  }

  private categoryPicker(category: PodcastCategory) {
    let picker = this.byCategory.get(category);
    if (!picker) {
      picker = zipfPicker(
        this.catalog.filter((show) => show.categories.includes(category)),
        0.8,
      );
      this.byCategory.set(category, picker);
    }
    return picker;
  }

  /**
   * 12 to 40 shows: the person's signature shows, then mostly shows from their favourite
   * categories, the rest from the whole catalog; popular shows are picked far more often.
   */
  build(person: DemoPersonSpec, position: number): DemoLibraryEntry[] {
    const rng = rngFor(`library:${person.username}`);
    const size = between(rng, 12, 40);
    const chosen: { show: CatalogPodcast; affinity: number }[] = [];
    const taken = new Set<string>();
    const add = (show: CatalogPodcast | undefined, affinity: number) => {
      if (!show || taken.has(show.name)) return;
      taken.add(show.name);
      chosen.push({ show, affinity });
    };
    for (const name of person.signatures) {
      const show = this.byName.get(name);
      if (!show) throw new Error(`Demo person ${person.username}: "${name}" is not in the catalog`);
      add(show, 3);
    }
    for (let attempts = 0; chosen.length < size && attempts < size * 30; attempts++) {
      if (rng() < 0.6) {
        const category = person.favourites[between(rng, 0, person.favourites.length - 1)]!;
        add(this.categoryPicker(category)(rng), 2);
      } else {
        add(this.overall(rng), 1);
      }
    }

    const hiddenIndex = position % 5 === 0 ? chosen.length - 1 : -1;
    return chosen.map(({ show, affinity }, index) => {
      const total = showEpisodeCount(show);
      const timesListened = Math.min(
        total,
        affinity === 3 ? between(rng, 30, 140) : affinity === 2 ? between(rng, 4, 60) : between(rng, 1, 25),
      );
      // Favourites are listened to recently; the rest anywhere in the last few months.
      const daysAgo = affinity === 3 ? rng() * 4 : affinity === 2 ? rng() ** 2 * 30 : rng() ** 1.5 * 90;
      const lastListened = new Date(this.now.getTime() - Math.round(daysAgo * DAY_MS) - between(rng, 1, 600) * 60_000);
      const episodes = this.episodesOf(show);
      const heard = episodes.find((episode) => episode.publishedAt <= lastListened) ?? episodes[episodes.length - 1]!;
      return {
        show,
        timesListened,
        episodeCount: total,
        lastListened,
        lastEpisode: heard.title,
        hidden: index === hiddenIndex,
        addedAt: new Date(lastListened.getTime() - between(rng, 20, 400) * DAY_MS),
      };
    });
  }
}
