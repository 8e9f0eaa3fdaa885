// One show, one catalog row, against the real demo catalog in a database of its own (the file's
// database holds its other tests' podcasts): imports and search resolve to the seeded rows.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm } from '../../core/db/orm';
import { seedCatalog } from '../../core/db/seeders/demo-seed';
import { startTestServer, type TestServer } from '../../test/harness';
import { ownMigratedDatabase } from '../../test/own-database';

type Person = { token: string; id: number };
type Summary = { id: number; name: string; creator: string | null };

const opml = (outlines: { title?: string; url: string }[]) =>
  `<?xml version="1.0" encoding="utf-8"?><opml version="2.0"><head><title>Subscriptions</title></head><body>${outlines
    .map((o) => `<outline type="rss"${o.title === undefined ? '' : ` text="${o.title}"`} xmlUrl="${o.url}"/>`)
    .join('')}</body></opml>`;

async function uploadOpml(server: TestServer, person: Person, content: string) {
  const form = new FormData();
  form.append('opml', new Blob([content]), 'subscriptions.opml');
  return server.call('POST', `/api/users/${person.id}/podcasts/opml`, { token: person.token, form });
}

describe('one show, one catalog row (demo catalog)', () => {
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let orm: MikroORM;
  let server: TestServer;
  let catalog: Map<string, number>;

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_podcast_catalog');
    orm = await initOrm(database.url);
    catalog = await seedCatalog(orm.em.fork() as EntityManager, new Date());
    server = await startTestServer({ DATABASE_URL: database.url });
  });

  afterAll(async () => {
    await server?.close();
    await orm?.close();
    await database?.drop();
  });

  const query = <T extends object>(text: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, params, 'all');
  const person = async (): Promise<Person> => {
    const login = await server.login();
    return { token: login.token, id: login.user.id };
  };
  const search = async (person: Person, q: string): Promise<Summary[]> => {
    const res = await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(q)}`, { token: person.token });
    expect(res.status).toBe(200);
    return res.json;
  };
  const libraryIds = async (person: Person) => {
    const res = await server.call('GET', `/api/users/${person.id}/podcasts`, { token: person.token });
    return (res.json as { podcastId: number }[]).map((e) => e.podcastId).sort((a, b) => a - b);
  };
  const catalogId = (name: string) => catalog.get(name) as number;

  it('imports catalog shows named by feed URL (spelled differently) or by title, and shares them with whoever added them by search', async () => {
    const searcher = await person();
    for (const [q, name] of [
      ['serial', 'Serial'],
      ['stuff you should know', 'Stuff You Should Know'],
      ['hardcore history', "Dan Carlin's Hardcore History"],
    ] as const) {
      const [top] = await search(searcher, q);
      expect(top?.name).toBe(name);
      const added = await server.call('POST', `/api/users/${searcher.id}/podcasts`, {
        token: searcher.token,
        body: { podcastId: top?.id },
      });
      expect(added.status).toBe(201);
    }
    const before = await query<{ n: number }>('select count(*)::int as n from podcasts');

    const importer = await person();
    const res = await uploadOpml(
      server,
      importer,
      opml([
        // Serial's catalog row has no feed URL: by title, the feed URL of the file is another one.
        { title: 'Serial', url: 'https://feeds.simplecast.com/xl36XBC2' },
        // The catalog's https://feeds.megaphone.fm/stuffyoushouldknow, written otherwise.
        { title: 'SYSK', url: 'HTTP://WWW.Feeds.Megaphone.FM:443/stuffyoushouldknow/' },
        // The catalog's http://feeds.feedburner.com/dancarlin/history?format=xml, over https.
        { title: 'Hardcore History', url: 'https://feeds.feedburner.com/dancarlin/history?format=xml#latest' },
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ feeds: 3, added: 3, alreadyInLibrary: 0 });
    expect(await query('select count(*)::int as n from podcasts')).toEqual(before);

    const shows = ['Serial', 'Stuff You Should Know', "Dan Carlin's Hardcore History"].map(catalogId);
    expect(await libraryIds(importer)).toEqual([...shows].sort((a, b) => a - b));
    expect(await libraryIds(searcher)).toEqual(await libraryIds(importer));

    // The feed of the importer shows the searcher with the three shared shows.
    const feed = await server.call('GET', `/api/users/${importer.id}/feed?intent=romantic`, { token: importer.token });
    expect(feed.status).toBe(200);
    const item = (feed.json as { id: number; sharedPodcasts: { id: number }[] }[]).find((i) => i.id === searcher.id);
    expect(item?.sharedPodcasts.map((p) => p.id).sort((a, b) => a - b)).toEqual([...shows].sort((a, b) => a - b));

    // The matched rows are as the catalog had them: the file's URLs and titles are stored nowhere.
    const rows = await query<{ name: string; feed_url: string | null }>(
      'select name, feed_url from podcasts where id = any(?::int[]) order by id',
      [`{${shows.join(',')}}`],
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        { name: 'Serial', feed_url: null },
        { name: 'Stuff You Should Know', feed_url: 'https://feeds.megaphone.fm/stuffyoushouldknow' },
        { name: "Dan Carlin's Hardcore History", feed_url: 'http://feeds.feedburner.com/dancarlin/history?format=xml' },
      ]),
    );
    expect(await query(`select id from podcasts where feed_url like '%simplecast.com/xl36XBC2%'`)).toEqual([]);
    expect((await search(importer, 'serial')).filter((p) => p.name === 'Serial')).toHaveLength(1);
  });

  it('never lets a title match change the catalog row, whatever the file says', async () => {
    const attacker = await person();
    const res = await uploadOpml(
      server,
      attacker,
      opml([{ title: 'THE serial!', url: 'https://attacker.example.com/serial.xml' }]),
    );
    expect(res.json).toMatchObject({ added: 1, jobIds: [] });
    expect(await libraryIds(attacker)).toEqual([catalogId('Serial')]);
    expect(await query(`select id from podcasts where feed_url like '%attacker.example.com%'`)).toEqual([]);
    expect(await query('select name, creator, feed_url from podcasts where id = ?', [catalogId('Serial')])).toEqual([
      { name: 'Serial', creator: 'Serial Productions & The New York Times', feed_url: null },
    ]);
  });

  it('ranks the exact title first, then titles and words starting with the query, then similar ones', async () => {
    const viewer = await person();
    const conan = await search(viewer, 'conan');
    expect(conan[0]?.name).toBe("Conan O'Brien Needs A Friend");
    const firstOther = conan.findIndex((p) => !/conan/i.test(p.name));
    expect(conan.findLastIndex((p) => /conan/i.test(p.name))).toBeLessThan(firstOther === -1 ? Infinity : firstOther);

    expect((await search(viewer, 'serial'))[0]?.name).toBe('Serial');
    expect((await search(viewer, 'The Daily'))[0]?.name).toBe('The Daily');
    expect((await search(viewer, 'daily'))[0]?.name).toBe('The Daily');
    expect((await search(viewer, 'conan obrien'))[0]?.name).toBe("Conan O'Brien Needs A Friend");
    // A word inside the title, before shows that only look alike.
    expect((await search(viewer, 'friend'))[0]?.name).toBe("Conan O'Brien Needs A Friend");
    // Typos still find the show; so does its creator.
    expect((await search(viewer, 'hardcor histroy')).slice(0, 3).map((p) => p.name)).toContain(
      "Dan Carlin's Hardcore History",
    );
    expect((await search(viewer, 'dan carlin')).map((p) => p.name)).toContain("Dan Carlin's Hardcore History");
  });
});
