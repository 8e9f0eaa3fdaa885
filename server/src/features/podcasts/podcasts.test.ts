import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PodcastSchema } from '../../core/db/entities';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name), 'utf8');

async function uploadOpml(server: TestServer, userId: number, token: string, content: string | Buffer, field = 'opml') {
  const form = new FormData();
  form.append(field, new Blob([content]), 'subscriptions.opml');
  const res = await fetch(`${server.url}/api/users/${userId}/podcasts/opml`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  return { status: res.status, json: (await res.json()) as any };
}

describe('podcast library', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it.each([
    ['antennapod.opml', 4, 1, ['99% Invisible', 'My Private Feed', 'Radiolab', 'Reply All & Friends']],
    ['pocketcasts.opml', 3, 0, ['Hardcore History', 'Radiolab', 'The Daily']],
    ['overcast.opml', 2, 0, ['Accidental Tech Podcast', 'Conan O’Brien Needs A Friend']],
  ])('imports the %s export', async (file, feeds, skipped, names) => {
    const { token, user } = await server.login();
    const res = await uploadOpml(server, user.id, token, fixture(file));
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ feeds, skipped, added: feeds, alreadyInLibrary: 0 });
    expect(res.json.jobIds.length).toBeGreaterThanOrEqual(0);

    const list = await server.call('GET', `/api/users/${user.id}/podcasts`, { token });
    expect(list.status).toBe(200);
    const listed = (list.json as { podcast: { name: string }; source: string }[]).map((e) => e.podcast.name).sort();
    // A podcast another test imported first keeps the name it got then; the set of feeds is what matters.
    expect(listed).toHaveLength(names.length);
    expect(list.json.every((e: { source: string }) => e.source === 'opml')).toBe(true);

    const again = await uploadOpml(server, user.id, token, fixture(file));
    expect(again.json).toMatchObject({ added: 0, alreadyInLibrary: feeds });
  });

  it('strips credentials from feed URLs and keys podcasts by feed URL', async () => {
    const { token, user } = await server.login();
    await uploadOpml(server, user.id, token, fixture('antennapod.opml'));
    const em = server.running.deps.orm.em.fork();
    const urls = (await em.find(PodcastSchema, { feedUrl: { $like: '%private.example.com%' } })).map((p) => p.feedUrl);
    expect(urls).toEqual(['https://private.example.com/feed.xml?token=abc']);
    expect(await em.count(PodcastSchema, { feedUrl: { $like: '%s3cret%' } })).toBe(0);
  });

  it.each([
    ['not XML', 'this is not xml at all <<<', 400, 'not valid XML'],
    ['not OPML', '<?xml version="1.0"?><rss><channel/></rss>', 400, 'not OPML'],
    ['no feeds', '<opml version="2.0"><head/><body><outline text="empty"/></body></opml>', 400, 'No podcast feeds'],
    [
      'an entity bomb',
      '<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><opml><body><outline xmlUrl="https://x.example/&b;"/></body></opml>',
      400,
      'DOCTYPE',
    ],
    ['truncated', fixture('overcast.opml').slice(0, 400), 400, 'not valid XML'],
  ])('refuses %s with a clear message and imports nothing', async (_label, content, status, message) => {
    const { token, user } = await server.login();
    const res = await uploadOpml(server, user.id, token, content);
    expect(res.status).toBe(status);
    expect(res.json.message).toContain(message);
    const list = await server.call('GET', `/api/users/${user.id}/podcasts`, { token });
    expect(list.json).toEqual([]);
  });

  it('refuses an upload without the file, in the wrong field, or too large', async () => {
    const { token, user } = await server.login();
    const none = await server.call('POST', `/api/users/${user.id}/podcasts/opml`, { token, body: {} });
    expect(none.status).toBe(400);
    expect((await uploadOpml(server, user.id, token, fixture('overcast.opml'), 'file')).status).toBe(400);
    const huge = await uploadOpml(server, user.id, token, Buffer.alloc(1024 * 1024 + 10, 'a'));
    expect(huge.status).toBe(413);
  });

  it('imports 500 feeds in one request and queues the feed reading in batches', async () => {
    const { token, user } = await server.login();
    const outlines = Array.from(
      { length: 500 },
      (_, i) => `<outline type="rss" text="Bulk ${i}" xmlUrl="https://bulk.example.com/${user.id}/feed-${i}.xml"/>`,
    ).join('\n');
    const res = await uploadOpml(server, user.id, token, `<opml version="2.0"><body>${outlines}</body></opml>`);
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ feeds: 500, added: 500 });
    expect(res.json.jobIds).toHaveLength(10);
  });

  it('lets only the owner hide, and hidden podcasts never show to anyone else', async () => {
    const owner = await server.login();
    const other = await server.login();
    await uploadOpml(server, owner.user.id, owner.token, fixture('pocketcasts.opml'));
    const mine = (await server.call('GET', `/api/users/${owner.user.id}/podcasts`, { token: owner.token })).json;
    const target = mine[0];

    const refused = await server.call('PUT', `/api/user-podcasts/${target.id}`, {
      token: other.token,
      body: { hidden: true },
    });
    expect(refused.status).toBe(404);

    const hidden = await server.call('PUT', `/api/user-podcasts/${target.id}`, {
      token: owner.token,
      body: { hidden: true },
    });
    expect(hidden.status).toBe(200);
    expect(hidden.json.hidden).toBe(true);

    const seenByOther = await server.call('GET', `/api/users/${owner.user.id}/podcasts`, { token: other.token });
    expect(seenByOther.status).toBe(403);
    expect(seenByOther.text).not.toContain(target.podcast.name);
    const seenByOwner = (await server.call('GET', `/api/users/${owner.user.id}/podcasts`, { token: owner.token })).json;
    expect(seenByOwner.find((e: { id: number }) => e.id === target.id).hidden).toBe(true);

    for (const body of [{ hidden: 'yes' }, {}, { hidden: true, userId: other.user.id }]) {
      const bad = await server.call('PUT', `/api/user-podcasts/${target.id}`, { token: owner.token, body });
      expect(bad.status).toBe(400);
    }
  });

  it('adds and removes podcasts by hand, owner only', async () => {
    const owner = await server.login();
    const other = await server.login();
    const em = server.running.deps.orm.em.fork();
    const podcast = em.create(PodcastSchema, { name: `Handpicked ${owner.user.id}`, categories: [] });
    await em.flush();

    const refused = await server.call('POST', `/api/users/${owner.user.id}/podcasts`, {
      token: other.token,
      body: { podcastId: podcast.id },
    });
    expect(refused.status).toBe(403);
    const added = await server.call('POST', `/api/users/${owner.user.id}/podcasts`, {
      token: owner.token,
      body: { podcastId: podcast.id },
    });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ podcastId: podcast.id, source: 'manual', hidden: false });
    const missing = await server.call('POST', `/api/users/${owner.user.id}/podcasts`, {
      token: owner.token,
      body: { podcastId: 2_000_000_000 },
    });
    expect(missing.status).toBe(404);

    expect((await server.call('DELETE', `/api/user-podcasts/${added.json.id}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await server.call('DELETE', `/api/user-podcasts/${added.json.id}`, { token: owner.token })).status).toBe(
      200,
    );
    const list = await server.call('GET', `/api/users/${owner.user.id}/podcasts`, { token: owner.token });
    expect(list.json).toEqual([]);
  });

  it('searches the catalog by prefix, with typos, and by creator', async () => {
    const { token } = await server.login();
    const em = server.running.deps.orm.em.fork();
    em.create(PodcastSchema, { name: 'Searchable Hardcore History', creator: 'Dan Carlin', categories: [] });
    em.create(PodcastSchema, { name: 'Searchable Science Friday', creator: 'WNYC Studios', categories: [] });
    await em.flush();
    const search = async (q: string) =>
      (await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(q)}`, { token })).json.map(
        (p: { name: string }) => p.name,
      );
    expect(await search('searchable hard')).toContain('Searchable Hardcore History');
    expect((await search('searchable hardcor histroy')).slice(0, 3)).toContain('Searchable Hardcore History');
    expect(await search('dan carlin')).toContain('Searchable Hardcore History');
    expect(await search('100%_\\')).toEqual(expect.any(Array));
    expect((await server.call('GET', '/api/podcasts/search?q=', { token })).status).toBe(400);
    expect((await server.call('GET', `/api/podcasts/search?q=${'x'.repeat(101)}`, { token })).status).toBe(400);
    expect((await server.call('GET', '/api/podcasts/search?q=abc&limit=500', { token })).status).toBe(400);
  });

  describe('resolving imports to catalog rows', () => {
    const exec = <T extends object = Record<string, unknown>>(text: string, params: unknown[] = []) =>
      server.running.deps.orm.em.fork().getConnection().execute<T[]>(text, params, 'all');
    const outline = (title: string | null, url: string) =>
      `<outline type="rss"${title === null ? '' : ` text="${title}"`} xmlUrl="${url}"/>`;
    const file = (outlines: string[]) => `<opml version="2.0"><body>${outlines.join('')}</body></opml>`;
    const libraryOf = async (person: { token: string; user: { id: number } }) =>
      (
        (await server.call('GET', `/api/users/${person.user.id}/podcasts`, { token: person.token })).json as {
          podcastId: number;
        }[]
      )
        .map((e) => e.podcastId)
        .sort((a, b) => a - b);

    it('does not resolve a title two catalog rows share (different creators) by title alone', async () => {
      const run = uniqueName('amb');
      const rows = await exec<{ id: number }>(
        `insert into podcasts (name, creator, categories, created_at)
         values (?, 'First Host', '{}', now()), (?, 'Second Host', '{}', now()) returning id`,
        [`Ambiguous ${run}`, `The Ambiguous ${run}!`],
      );
      const me = await server.login();
      const res = await uploadOpml(
        server,
        me.user.id,
        me.token,
        file([outline(`ambiguous ${run}`, `https://${run.replace('_', '-')}.example.com/feed`)]),
      );
      expect(res.json).toMatchObject({ feeds: 1, added: 1 });
      const [entry] = await libraryOf(me);
      expect(rows.map((r) => r.id)).not.toContain(entry);
      expect(await exec('select feed_url from podcasts where id = ?', [entry])).toEqual([
        { feed_url: `https://${run.replace('_', '-')}.example.com/feed` },
      ]);
    });

    it('keeps one row per show when 30 people import overlapping files at once, and nobody fails', async () => {
      const run = uniqueName('conc').replace('_', '-');
      const [catalogRow] = await exec<{ id: number }>(
        `insert into podcasts (name, creator, categories, created_at) values (?, 'Someone', '{}', now()) returning id`,
        [`Concurrent Catalog ${run}`],
      );
      // 40 shows; each file lists 20 of them, in one of three spellings of the feed URL, and the
      // catalog show by title under a feed URL of its own.
      const spellings = [
        (i: number) => `https://shows.${run}.example.com/feed/${i}.xml`,
        (i: number) => `http://SHOWS.${run.toUpperCase()}.EXAMPLE.COM/feed/${i}.xml/`,
        (i: number) => `https://www.shows.${run}.example.com:443/feed/${i}.xml#top`,
      ];
      const fileOf = (person: number, round: number) =>
        file([
          ...Array.from({ length: 20 }, (_, k) => {
            const show = (person * 7 + k) % 40;
            return outline(`Concurrent ${run} ${show}`, spellings[(person + k + round) % 3]?.(show) as string);
          }),
          outline(`concurrent catalog ${run}`, `https://mirror-${person}.${run}.example.com/rss`),
        ]);
      const people = await Promise.all(Array.from({ length: 30 }, () => server.login()));

      for (const round of [0, 1]) {
        const answers = await Promise.all(
          people.map((p, i) => uploadOpml(server, p.user.id, p.token, fileOf(i, round))),
        );
        expect(answers.map((a) => a.status)).toEqual(people.map(() => 202));
        expect(answers.map((a) => a.json.added)).toEqual(people.map(() => (round === 0 ? 21 : 0)));
      }
      const rows = await exec<{ n: number; keys: number }>(
        `select count(*)::int as n, count(distinct feed_url_key)::int as keys from podcasts where feed_url_key like ?`,
        [`%shows.${run}.example.com/%`],
      );
      expect(rows).toEqual([{ n: 40, keys: 40 }]);
      expect(await exec('select id from podcasts where feed_url like ?', [`%mirror-%${run}%`])).toEqual([]);
      for (const p of people.slice(0, 3)) {
        const library = await libraryOf(p);
        expect(library).toHaveLength(21);
        expect(library).toContain(catalogRow?.id);
      }
    });

    it('answers hostile titles, URLs and search text without a server error', async () => {
      const run = uniqueName('hostile').replace('_', '-');
      const me = await server.login();
      const url = (n: number | string) => `https://${run}.example.com/${n}`;
      const titles = [
        'x'.repeat(200_000),
        '\u202Eevil\u200B\u200D title\uFEFF',
        `e${'\u0301'.repeat(5000)}`,
        '\u{1F399}\uFE0F\u{1F3A7} \u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
        '\u041F\u041E\u0414\u041A\u0410\u0421\u0422 \u65E5\u672C\u8A9E',
        '!!!',
        'The',
        '%_\\ &amp;amp; &lt;b&gt;',
      ];
      const first = await uploadOpml(
        server,
        me.user.id,
        me.token,
        file([
          ...titles.map((title, i) => outline(title, url(i))),
          outline(null, `https://p\u00F6dcast-${run}.example.com/feed`),
          outline('nul in path', url('a%00b')),
          outline('long', url(`${'p'.repeat(1900)}`)),
        ]),
      );
      expect(first.status).toBe(202);
      expect(first.json.feeds).toBe(titles.length + 3);
      expect((await server.call('GET', `/api/users/${me.user.id}/podcasts`, { token: me.token })).status).toBe(200);

      // Character references XML forbids (NUL, a lone surrogate): refused or stored clean.
      const refs = await uploadOpml(
        server,
        me.user.id,
        me.token,
        file([outline('nul&#0;here', url('nul')), outline('half&#xD800;pair', url('half'))]),
      );
      expect(refs.status).toBeLessThan(500);

      for (const q of [
        '\u0000',
        `e${'\u0301'.repeat(99)}`,
        '\u202E\u200B',
        '\u{1F399}'.repeat(25),
        '!!!',
        'the',
        '%',
        'x'.repeat(100),
      ]) {
        const res = await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(q)}`, { token: me.token });
        expect(res.status, q).toBeLessThan(500);
      }
      const broken = await server.call('GET', '/api/podcasts/search?q=%ED%A0%80%FF', { token: me.token });
      expect(broken.status).toBeLessThan(500);
    });
  });
});
