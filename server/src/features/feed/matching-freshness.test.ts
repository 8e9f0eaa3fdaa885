// The precomputed feed against a full recompute, on a population with planted taste communities
// loaded one person after another (as people join). Own database: full recomputes rewrite every
// list and the model, which must not touch other test files' people.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { INTENTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm } from '../../core/db/orm';
import { calibrate, NO_SHARED_SHOW_CAP } from '../../core/matching/match-score';
import { currentModel } from '../../core/matching/model';
import { recomputeAll, recomputeUser, refreshIfStale } from '../../core/matching/precompute';
import { testArtworkUrls } from '../../test/harness';
import { ownMigratedDatabase } from '../../test/own-database';
import { feedFor, loadViewer } from './feed.service';

const COMMUNITIES = 3;
const PER_COMMUNITY = 16;

describe('matching freshness and quality', () => {
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let orm: MikroORM;
  const people: { id: number; community: number }[] = [];
  const fork = () => orm.em.fork() as EntityManager;
  const query = <T extends object>(text: string, params: unknown[] = []) =>
    fork().getConnection().execute<T[]>(text, params, 'all');

  /** Each person's stored top 10 (romantic feed), as the feed serves it. */
  async function topTens(): Promise<Map<number, number[]>> {
    const tops = new Map<number, number[]>();
    for (const person of people) {
      const em = fork();
      const viewer = await loadViewer(em, person.id);
      if (!viewer) throw new Error('missing viewer');
      tops.set(
        person.id,
        (await feedFor(em, viewer, 'romantic', testArtworkUrls())).slice(0, 10).map((item) => item.id),
      );
    }
    return tops;
  }

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_matching_freshness');
    orm = await initOrm(database.url);
    // Shows: 4 chart-toppers everyone may list, 14 per community.
    const created = await query<{ id: number }>(
      `insert into podcasts (name, feed_url, category, created_at)
       select 'Fresh show ' || g, 'https://feeds.fresh.example/' || g || '.xml', 'Comedy', now()
         from generate_series(1, ${4 + COMMUNITIES * 14}) g returning id`,
    );
    const first = Math.min(...created.map((row) => row.id));
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = (from: number, count: number, n: number) => {
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(from + Math.floor(random() * count));
      return [...chosen];
    };
    // Arrivals interleave the communities, one person after another, each recomputed as the job would.
    for (let i = 0; i < COMMUNITIES * PER_COMMUNITY; i++) {
      const community = i % COMMUNITIES;
      const [user] = await query<{ id: number }>(
        `insert into users (username, password, display_name, intent, match_preferences, created_at, updated_at, sign_up_method)
         values (?, 'x', ?, 'romantic', '{"minMatchPercentage":0}', now(), now(), 'dev_login') returning id`,
        [`fresh_${i}`, `Fresh ${i}`],
      );
      const id = (user as { id: number }).id;
      await query(
        `insert into user_profiles (user_id, intent, display_name, active)
         select ?, i, 'Fresh', true from unnest(?::text[]) i`,
        [id, `{${INTENTS.join(',')}}`],
      );
      const shows = [
        ...pick(first, 4, 2),
        ...pick(first + 4 + community * 14, 14, 4),
        ...(random() < 0.3 ? pick(first + 4, COMMUNITIES * 14, 1) : []),
      ];
      await query(
        `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
         select ?, p, 'manual', 0, false, now() from unnest(?::int[]) p on conflict do nothing`,
        [id, `{${shows.join(',')}}`],
      );
      await recomputeUser(fork(), id);
      people.push({ id, community });
    }
  });

  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('after the freshness check, every stored top 10 agrees with a full recompute', async () => {
    const refreshed = await refreshIfStale(fork());
    expect(refreshed.ran).toBe(true);
    expect(refreshed.users).toBe(people.length);
    const served = await topTens();
    await recomputeAll(fork());
    const full = await topTens();
    let agreement = 0;
    for (const person of people) {
      const mine = served.get(person.id) ?? [];
      const theirs = full.get(person.id) ?? [];
      expect(theirs.length).toBe(10);
      agreement += theirs.filter((id) => mine.includes(id)).length / theirs.length;
    }
    expect(agreement / people.length).toBeGreaterThanOrEqual(0.95);
    // And the ranking finds the planted communities.
    const community = new Map(people.map((p) => [p.id, p.community]));
    let hits = 0;
    for (const person of people) {
      hits += (full.get(person.id) ?? []).filter((id) => community.get(id) === person.community).length;
    }
    expect(hits / (people.length * 10)).toBeGreaterThan(0.9);
  });

  it('runs the full recompute only when libraries changed, and not again too soon', async () => {
    await refreshIfStale(fork());
    expect((await refreshIfStale(fork())).ran).toBe(false);
    const { model } = await currentModel(fork());
    if (!model) throw new Error('no model');
    const someone = people[0] as { id: number };
    await query('update user_podcasts set times_listened = times_listened + 1 where user_id = ?', [someone.id]);
    // Changed, but the last run ended a moment ago: it waits for 10x its duration.
    expect((await refreshIfStale(fork(), () => {}, model.finishedAt.getTime() + 1)).ran).toBe(false);
    const later = model.finishedAt.getTime() + 10 * model.durationMs + 1;
    expect((await refreshIfStale(fork(), () => {}, later)).ran).toBe(true);
    const { model: next } = await currentModel(fork());
    expect(next?.version).toBe(model.version + 1);
    expect(next?.users).toBe(people.length);
  });

  it('gives every feed item its shared shows, and never ranks someone sharing none above a sharer', async () => {
    const weak = calibrate(NO_SHARED_SHOW_CAP);
    for (const person of people) {
      const em = fork();
      const viewer = await loadViewer(em, person.id);
      if (!viewer) throw new Error('missing viewer');
      for (const intent of INTENTS) {
        const items = await feedFor(em, viewer, intent, testArtworkUrls());
        expect(items.length).toBeGreaterThan(0);
        let sawNonSharer = false;
        for (const item of items) {
          if (item.sharedPodcasts.length === 0) {
            sawNonSharer = true;
            expect(item.matchPercentage).toBeLessThanOrEqual(weak);
          } else expect(sawNonSharer).toBe(false);
        }
        expect(items.every((item) => item.sharedPodcasts.length > 0)).toBe(true);
      }
    }
  });

  it('scores the same in worker threads as inline', async () => {
    const rows = () =>
      query<{ user_id: number; candidate_id: number; score: number; raw: number; shared_podcast_ids: number[] }>(
        'select user_id, candidate_id, score, raw, shared_podcast_ids from feed_candidates order by user_id, candidate_id',
      );
    await recomputeAll(fork(), () => {}, { threads: 0 });
    const inline = await rows();
    await recomputeAll(fork(), () => {}, { threads: 2 });
    expect(await rows()).toEqual(inline);
    expect(inline.length).toBeGreaterThan(people.length * 10);
  });

  it('keeps the lists of people whose library changed during a full recompute', async () => {
    // 30 people (three times the pool) add a new show they all share while a full recompute runs.
    const changers = people.slice(0, 30);
    const [show] = await query<{ id: number }>(
      `insert into podcasts (name, feed_url, category, created_at)
       values ('Late show', 'https://feeds.fresh.example/late.xml', 'Comedy', now()) returning id`,
    );
    // The changes land after the full recompute read the libraries and before it swaps its tables in.
    await recomputeAll(fork(), () => {}, {
      afterSnapshot: () =>
        Promise.all(
          changers.map(async (person) => {
            await query(
              `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
               values (?, ?, 'manual', 0, false, now())`,
              [person.id, show?.id],
            );
            await recomputeUser(fork(), person.id);
          }),
        ).then(() => undefined),
    });
    const listOf = (userId: number) =>
      query<{ candidate_id: number; score: number; shared_podcast_ids: number[] }>(
        'select candidate_id, score, shared_podcast_ids from feed_candidates where user_id = ? order by candidate_id',
        [userId],
      );
    // Every pair of changers listed together names the new show: no list from before the change
    // survived the swap (the full recompute read the libraries before or during the change).
    const ids = changers.map((p) => p.id);
    let pairs = 0;
    for (const person of changers) {
      for (const row of await listOf(person.id)) {
        if (!ids.includes(row.candidate_id)) continue;
        pairs++;
        expect(row.shared_podcast_ids).toContain(show?.id);
      }
    }
    expect(pairs).toBeGreaterThan(changers.length);
  });
});
