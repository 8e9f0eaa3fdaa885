// Migration20261123200000 against duplicates planted in a database of its own, migrated to the
// migration before it: what merges, what stays apart, and where libraries, episodes and
// precomputed shared podcasts end up.
import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../../core/db/migrations';
import { Migration20261123200000 } from '../../core/db/migrations/Migration20261123200000';
import { initOrm } from '../../core/db/orm';
import { ownDatabase } from '../../test/own-database';

const MIGRATION = 'Migration20261123200000';

type Row = Record<string, unknown>;

describe(`${MIGRATION}: merging duplicate podcasts`, () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let orm: MikroORM;
  const ids: Record<string, number> = {};
  const users: Record<string, number> = {};
  const t = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();

  const query = <T extends object = Row>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params, 'all');

  async function podcast(key: string, row: Row) {
    const [inserted] = await query<{ id: number }>(
      `insert into podcasts (name, creator, feed_url, spotify_id, image_url, categories, created_at)
       values (?, ?, ?, ?, ?, ?::text[], now()) returning id`,
      [
        row.name,
        row.creator ?? null,
        row.feedUrl ?? null,
        row.spotifyId ?? null,
        row.imageUrl ?? null,
        row.categories ?? '{}',
      ],
    );
    ids[key] = inserted?.id as number;
  }

  async function entry(user: string, show: string, row: Row) {
    await query(
      `insert into user_podcasts (user_id, podcast_id, episode_count, last_listened, hidden, times_listened, last_episode, source, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        users[user],
        ids[show],
        row.episodes ?? null,
        row.last ?? null,
        row.hidden ?? false,
        row.plays ?? 0,
        row.lastEpisode ?? null,
        row.source ?? 'manual',
        row.added ?? t(1),
      ],
    );
  }

  const entriesOf = (user: string) =>
    query(
      `select podcast_id, episode_count, last_listened, hidden, times_listened, last_episode, source
         from user_podcasts where user_id = ? order by podcast_id`,
      [users[user]],
    );

  beforeAll(async () => {
    database = await ownDatabase('podmatch_test_podcast_merge');
    orm = await initOrm(database.url);
    const position = migrationsList.findIndex((m) => m.name === MIGRATION);
    await orm.getMigrator().up({ to: migrationsList[position - 1]?.name as string });

    for (const name of ['ann', 'bob', 'cat']) {
      const [user] = await query<{ id: number }>(
        `insert into users (username, password, display_name, match_preferences, sign_up_method, created_at, updated_at)
         values (?, 'x', ?, '{}', 'dev_login', now(), now()) returning id`,
        [name, name],
      );
      users[name] = user?.id as number;
    }

    // Serial: the catalog row, and two feed-only rows added by imports (no creator).
    await podcast('serial', { name: 'Serial', creator: 'Serial Productions', categories: '{News}' });
    await podcast('serialAdded', { name: 'Serial', feedUrl: 'https://feeds.simplecast.com/xl36XBC2' });
    await podcast('serialShout', { name: 'SERIAL!', feedUrl: 'https://serial.example.com/rss' });
    // Stuff You Should Know: one feed, three spellings (one with another title).
    await podcast('sysk', {
      name: 'Stuff You Should Know',
      creator: 'iHeartPodcasts',
      feedUrl: 'https://feeds.megaphone.fm/stuffyoushouldknow',
      categories: '{Education}',
    });
    await podcast('syskHttp', {
      name: 'Stuff You Should Know',
      feedUrl: 'http://feeds.megaphone.fm/stuffyoushouldknow/',
    });
    await podcast('syskWww', { name: 'SYSK', feedUrl: 'https://WWW.feeds.megaphone.fm:443/stuffyoushouldknow#latest' });
    // The Daily: two authors, so two shows; the row without an author cannot tell which.
    await podcast('dailyNyt', { name: 'The Daily', creator: 'The New York Times' });
    await podcast('dailyOther', { name: 'The Daily', creator: 'Another Newsroom' });
    await podcast('dailyNone', { name: 'Daily', feedUrl: 'https://daily.example.com/rss' });
    // Same title and author: one show, whatever the punctuation; the Spotify copy has less catalog info.
    await podcast('radiolab', {
      name: 'Radiolab',
      creator: 'WNYC Studios',
      imageUrl: 'https://img/r.jpg',
      categories: '{Science}',
    });
    await podcast('radiolabSpotify', { name: 'RadioLab', creator: 'WNYC studios', spotifyId: 'sp-radiolab' });
    // Two Spotify shows of one name and publisher stay two rows.
    await podcast('twinA', { name: 'Twin', creator: 'Same', spotifyId: 'sp-twin-a' });
    await podcast('twinB', { name: 'Twin', creator: 'Same', spotifyId: 'sp-twin-b' });

    // Ann holds the catalog Serial and both copies: one entry with the larger figures.
    await entry('ann', 'serial', { plays: 3, episodes: 10, last: t(5), hidden: true, lastEpisode: 'E5', added: t(2) });
    await entry('ann', 'serialAdded', {
      plays: 5,
      episodes: 8,
      last: t(9),
      lastEpisode: 'E9',
      source: 'opml',
      added: t(1),
    });
    await entry('ann', 'serialShout', { plays: 1, hidden: true, source: 'opml' });
    // Bob only a copy, hidden; Cat two copies, both hidden, from Spotify and OPML.
    await entry('bob', 'serialAdded', { plays: 2, hidden: true, source: 'opml' });
    await entry('cat', 'serialAdded', { hidden: true, source: 'spotify', lastEpisode: 'C1', last: t(3) });
    await entry('cat', 'serialShout', { hidden: true, source: 'opml', plays: 4 });
    await entry('cat', 'syskWww', { plays: 7, source: 'opml' });
    await entry('bob', 'sysk', { plays: 1 });
    await entry('ann', 'radiolabSpotify', { plays: 2, source: 'spotify' });

    // Episodes: the copies' guids the catalog row lacks move over, once.
    for (const [show, guid] of [
      ['serial', 'g1'],
      ['serialAdded', 'g1'],
      ['serialAdded', 'g2'],
      ['serialShout', 'g2'],
      ['serialShout', 'g3'],
    ] as const) {
      await query(`insert into podcast_episodes (podcast_id, guid, title) values (?, ?, ?)`, [ids[show], guid, guid]);
    }

    // Precomputed feeds naming the copies.
    const candidates: [string, string, string[]][] = [
      ['ann', 'bob', ['serialAdded', 'sysk']],
      ['bob', 'ann', ['serialAdded', 'sysk']],
      ['ann', 'cat', ['serialShout', 'serialAdded', 'radiolabSpotify']],
      ['cat', 'ann', ['serialAdded', 'serial']],
    ];
    for (const [user, candidate, shows] of candidates) {
      await query(
        `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids) values (?, ?, 50, 0.5, ?::int[])`,
        [users[user], users[candidate], `{${shows.map((s) => ids[s]).join(',')}}`],
      );
    }

    await orm.getMigrator().up({ to: MIGRATION });
  });

  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const remaining = async () => new Set((await query<{ id: number }>('select id from podcasts')).map((r) => r.id));

  it('keeps one row per feed and per title with compatible authors, and leaves other rows alone', async () => {
    const left = await remaining();
    const kept = ['serial', 'sysk', 'dailyNyt', 'dailyOther', 'dailyNone', 'radiolab', 'twinA', 'twinB'];
    const merged = ['serialAdded', 'serialShout', 'syskHttp', 'syskWww', 'radiolabSpotify'];
    expect(kept.filter((k) => !left.has(ids[k] as number))).toEqual([]);
    expect(merged.filter((k) => left.has(ids[k] as number))).toEqual([]);
    // The rows kept are unchanged: no feed URL or Spotify id borrowed from a duplicate.
    expect(await query('select name, creator, feed_url, spotify_id from podcasts where id = ?', [ids.serial])).toEqual([
      { name: 'Serial', creator: 'Serial Productions', feed_url: null, spotify_id: null },
    ]);
    expect(await query('select spotify_id from podcasts where id = ?', [ids.radiolab])).toEqual([{ spotify_id: null }]);
  });

  it('moves library entries, keeping one per person with the larger figures', async () => {
    expect(await entriesOf('ann')).toEqual([
      {
        podcast_id: ids.serial,
        episode_count: 10,
        last_listened: expect.stringMatching(/^2026-01-09 /),
        hidden: false,
        times_listened: 5,
        last_episode: 'E9',
        source: 'manual',
      },
      expect.objectContaining({ podcast_id: ids.radiolab, times_listened: 2, source: 'spotify' }),
    ]);
    expect(await entriesOf('bob')).toEqual([
      expect.objectContaining({ podcast_id: ids.serial, hidden: true, times_listened: 2, source: 'opml' }),
      expect.objectContaining({ podcast_id: ids.sysk, times_listened: 1 }),
    ]);
    // Both of Cat's copies were hidden, so the one entry is; OPML outlives Spotify as its source.
    expect(await entriesOf('cat')).toEqual([
      expect.objectContaining({
        podcast_id: ids.serial,
        hidden: true,
        times_listened: 4,
        source: 'opml',
        last_episode: 'C1',
      }),
      expect.objectContaining({ podcast_id: ids.sysk, times_listened: 7, source: 'opml' }),
    ]);
  });

  it('moves the episodes the kept row lacked, and rewrites precomputed shared podcasts', async () => {
    const episodes = await query<{ guid: string }>(
      'select guid from podcast_episodes where podcast_id = ? order by guid',
      [ids.serial],
    );
    expect(episodes.map((e) => e.guid)).toEqual(['g1', 'g2', 'g3']);
    expect(await query('select count(*)::int as n from podcast_episodes')).toEqual([{ n: 3 }]);

    const shared = async (user: string, candidate: string) =>
      (
        await query<{ shared_podcast_ids: number[] }>(
          'select shared_podcast_ids from feed_candidates where user_id = ? and candidate_id = ?',
          [users[user], users[candidate]],
        )
      )[0]?.shared_podcast_ids;
    expect(await shared('ann', 'bob')).toEqual([ids.serial, ids.sysk]);
    expect(await shared('bob', 'ann')).toEqual([ids.serial, ids.sysk]);
    // Two copies of one show collapse into one id, where the first stood.
    expect(await shared('ann', 'cat')).toEqual([ids.serial, ids.radiolab]);
    expect(await shared('cat', 'ann')).toEqual([ids.serial]);
  });

  it('gives every row its keys, and running the migration again changes nothing', async () => {
    expect(
      await query('select feed_url_key, name_key from podcasts where id in (?, ?) order by id', [ids.serial, ids.sysk]),
    ).toEqual([
      { feed_url_key: null, name_key: 'serial' },
      { feed_url_key: 'feeds.megaphone.fm/stuffyoushouldknow', name_key: 'stuff you should know' },
    ]);
    const snapshot = async () => ({
      podcasts: await query('select * from podcasts order by id'),
      entries: await query('select * from user_podcasts order by id'),
      candidates: await query('select * from feed_candidates order by user_id, candidate_id'),
    });
    const before = await snapshot();
    const migration = new Migration20261123200000(orm.em.getDriver(), orm.config);
    await migration.up();
    for (const statement of migration.getQueries()) await query(statement as string);
    expect(await snapshot()).toEqual(before);
    // A feed URL spelled another way is now refused as a second row.
    await expect(
      query(
        `insert into podcasts (name, feed_url, created_at) values ('x', 'http://feeds.megaphone.fm/stuffyoushouldknow', now())`,
      ),
    ).rejects.toThrow(/podcasts_feed_url_key_unique/);
  });
});
