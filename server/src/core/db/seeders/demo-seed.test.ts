// The demo seed against real, freshly migrated databases of its own (seeding only ever fills an
// empty database, and the two are compared).
import type { MikroORM } from '@mikro-orm/postgresql';
import { INTENTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownMigratedDatabase } from '../../../test/own-database';
import { initOrm } from '../orm';
import { DEMO_PEOPLE } from './data/demo-people';
import { PODCAST_CATALOG, PODCAST_CATEGORIES } from './data/podcast-catalog';
import { seedDemoData } from './demo-seed';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TABLES = ['podcasts', 'users', 'user_profiles', 'user_podcasts', 'podcast_episodes'] as const;

type Row = Record<string, unknown>;

const DATABASES = ['podmatch_test_seed_a', 'podmatch_test_seed_b'] as const;
const dropping: (() => Promise<void>)[] = [];

async function freshOrm(database: string): Promise<MikroORM> {
  const own = await ownMigratedDatabase(database);
  dropping.push(own.drop);
  return initOrm(own.url);
}

async function dump(orm: MikroORM): Promise<Record<string, Row[]>> {
  const knex = orm.em.getKnex();
  const out: Record<string, Row[]> = {};
  for (const table of TABLES) {
    const rows: Row[] = await knex(table).select('*').orderBy('id');
    // Passwords are random on purpose: no one may know a demo person's password.
    out[table] = rows.map(({ password: _password, ...row }) => row);
  }
  return out;
}

describe('demo seed', () => {
  let a: MikroORM;
  let b: MikroORM;
  let created: number[];
  let data: Record<string, Row[]>;

  beforeAll(async () => {
    [a, b] = (await Promise.all(DATABASES.map(freshOrm))) as [MikroORM, MikroORM];
    created = await seedDemoData(a.em.fork(), { now: NOW });
    data = await dump(a);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    for (const drop of dropping) await drop();
  });

  it('creates the catalog: at least 300 real shows with valid categories and unique names and feeds', () => {
    const podcasts = data.podcasts!;
    expect(podcasts.length).toBe(PODCAST_CATALOG.length);
    expect(podcasts.length).toBeGreaterThanOrEqual(300);
    const categories = new Set<string>(PODCAST_CATEGORIES);
    for (const podcast of podcasts) {
      expect(categories.has(podcast.category as string)).toBe(true);
      const list = podcast.categories as string[];
      expect(list[0]).toBe(podcast.category);
      expect(list.length).toBeLessThanOrEqual(2);
      for (const category of list) expect(categories.has(category)).toBe(true);
      expect(podcast.creator).toBeTruthy();
      expect(podcast.image_url).toBeNull();
      if (podcast.feed_url !== null) expect(podcast.feed_url).toMatch(/^https?:\/\/[^\s]+$/);
    }
    const names = podcasts.map((p) => (p.name as string).toLowerCase());
    expect(new Set(names).size).toBe(names.length);
    const feeds = podcasts.map((p) => p.feed_url).filter(Boolean);
    expect(new Set(feeds).size).toBe(feeds.length);
    // Every category has shows to match on.
    for (const category of PODCAST_CATEGORIES) {
      expect(podcasts.filter((p) => (p.categories as string[]).includes(category)).length).toBeGreaterThanOrEqual(4);
    }
  });

  it('creates at least 60 demo people with distinct demo. usernames, taglines and three profiles each', () => {
    const users = data.users!;
    expect(users.length).toBe(DEMO_PEOPLE.length);
    expect(users.length).toBeGreaterThanOrEqual(60);
    expect(created.sort((x, y) => x - y)).toEqual(users.map((u) => u.id));
    const usernames = users.map((u) => u.username as string);
    expect(new Set(usernames).size).toBe(usernames.length);
    for (const user of users) {
      expect(user.username).toMatch(/^demo\.[a-z]+$/);
      expect(user.is_demo).toBe(true);
      expect(user.romantic_tagline && user.platonic_tagline && user.professional_tagline).toBeTruthy();
      const profiles = data.user_profiles!.filter((p) => p.user_id === user.id);
      expect(profiles.map((p) => p.intent).sort()).toEqual([...INTENTS].sort());
      expect(profiles.find((p) => p.intent === user.intent)?.active).toBe(true);
      for (const profile of profiles) expect(profile.display_name).toBe(user.display_name);
    }
    // Spread across the intents, and each intent's feed has plenty of active people.
    for (const intent of INTENTS) {
      expect(users.filter((u) => u.intent === intent).length).toBeGreaterThanOrEqual(15);
      const active = data.user_profiles!.filter((p) => p.intent === intent && p.active).length;
      expect(active).toBeGreaterThanOrEqual(20);
    }
    // Some people appear in more than their primary intent, most in only one.
    const activeCounts = users.map((u) => data.user_profiles!.filter((p) => p.user_id === u.id && p.active).length);
    expect(activeCounts.filter((n) => n > 1).length).toBeGreaterThan(5);
    expect(activeCounts.filter((n) => n === 1).length).toBeGreaterThan(users.length / 2);
  });

  it('gives everyone a believable library: 12-40 shows, recent listens, a few hidden, popular shows shared', () => {
    const entries = data.user_podcasts!;
    const episodes = data.podcast_episodes!;
    for (const user of data.users!) {
      const library = entries.filter((e) => e.user_id === user.id);
      expect(library.length).toBeGreaterThanOrEqual(12);
      expect(library.length).toBeLessThanOrEqual(40);
    }
    for (const entry of entries) {
      expect(entry.source).toBe('manual');
      expect(entry.times_listened as number).toBeGreaterThan(0);
      expect(entry.times_listened as number).toBeLessThanOrEqual(entry.episode_count as number);
      const last = new Date(entry.last_listened as string).getTime();
      expect(last).toBeLessThan(NOW.getTime());
      expect(last).toBeGreaterThan(NOW.getTime() - 100 * 24 * 3600 * 1000);
      // The last episode is one of the show's seeded episodes (profile Activity joins them).
      const episode = episodes.find((ep) => ep.podcast_id === entry.podcast_id && ep.title === entry.last_episode);
      expect(episode?.episode_number).toBeTypeOf('number');
      expect(episode?.description).toBeTruthy();
    }
    const hidden = entries.filter((e) => e.hidden).length;
    expect(hidden).toBeGreaterThan(0);
    expect(hidden).toBeLessThan(entries.length / 20);

    // Zipf-like: the most held show is in many libraries, and many shows are in one or two.
    const holders = new Map<unknown, number>();
    for (const entry of entries) holders.set(entry.podcast_id, (holders.get(entry.podcast_id) ?? 0) + 1);
    const counts = [...holders.values()].sort((x, y) => y - x);
    expect(counts[0]).toBeGreaterThanOrEqual(15);
    expect(counts.filter((n) => n <= 2).length).toBeGreaterThan(30);
    expect(holders.size).toBeGreaterThan(150);
  });

  it('seeds the same data into a second fresh database', async () => {
    const ids = await seedDemoData(b.em.fork(), { now: NOW });
    expect(ids).toEqual(created);
    expect(await dump(b)).toEqual(data);
  });

  it('does nothing when the database is not empty', async () => {
    expect(await seedDemoData(a.em.fork(), { now: new Date() })).toEqual([]);
    expect(await dump(a)).toEqual(data);
  });
});
