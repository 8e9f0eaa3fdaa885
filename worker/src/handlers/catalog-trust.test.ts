// The catalog against titles and feeds that lie (docs/podcasts.md, "One show, one row"), end to end:
// OPML imports over HTTP, real RSS served on loopback, the real worker reading the feeds. A title
// resolves imports only to a row whose feed was read; a feed read merges its row only into a row
// whose feed agrees with it (served from its URL, or the same podcast:guid that is that row's own),
// never into one that merely has the title and author the feed claims.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@server/core/logger';
import { startTestServer, type TestServer, testEnv, uniqueName, until } from '@server/test/harness';
import { testRedisUrl } from '@server/test/test-stack';
import { type LoginResponse, QUEUES } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';
import { podcastGuidOf } from './rss-sync';

interface FeedContent {
  title: string;
  author: string;
  guid?: string;
  episodes: string[];
}

const rss = (feed: FeedContent) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
  <channel>
    <title>${feed.title}</title>
    <description>About ${feed.title}.</description>
    <itunes:author>${feed.author}</itunes:author>
    ${feed.guid ? `<podcast:guid>${feed.guid}</podcast:guid>` : ''}
    ${feed.episodes.map((e) => `<item><title>Episode ${e}</title><guid>${e}</guid></item>`).join('\n    ')}
  </channel>
</rss>`;

type Row = {
  id: number;
  name: string;
  creator: string | null;
  feed_url: string;
  feed_url_key: string;
  verified: boolean;
  fetch_error: string | null;
  podcast_guid: string | null;
};

describe('the catalog trusts feeds, not what they claim', () => {
  /** What each path of the loopback feed server answers; anything else is a 404 (a dead feed). */
  const routes = new Map<string, (res: http.ServerResponse) => void>();
  let feeds: http.Server;
  let base: string;
  let server: TestServer;
  let worker: RunningWorker;
  let redis: Redis;
  let syncQueue: Queue;

  beforeAll(async () => {
    feeds = http.createServer((req, res) => {
      // Trailing slashes do not matter to the catalog's feed key, nor here.
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/\/+$/, '');
      const route = routes.get(path);
      if (route) return route(res);
      res.writeHead(404);
      res.end('no such feed');
    });
    await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
    // Loopback feeds on a random port: the development allow-list lets the import name them and the
    // worker read them (docs/podcasts.md, "Reading RSS feeds").
    server = await startTestServer({ FEED_FETCH_ALLOWED_IPS: '127.0.0.1' });
    worker = await startWorker(
      loadWorkerConfig(testEnv({ FEED_FETCH_ALLOWED_IPS: '127.0.0.1' })),
      createLogger('worker', 'silent'),
    );
    redis = new Redis(testRedisUrl());
    syncQueue = new Queue(QUEUES.sync, { connection: redis });
  });
  afterAll(async () => {
    await syncQueue?.close();
    redis?.disconnect();
    await worker?.close();
    await server?.close();
    feeds?.close();
  });

  /** Serves this feed at `path` and returns its URL. */
  function serve(path: string, feed: FeedContent): string {
    routes.set(path, (res) => {
      res.writeHead(200, { 'content-type': 'application/rss+xml' });
      res.end(rss(feed));
    });
    return `${base}${path}`;
  }
  /** `path` answers a permanent redirect to `to` (a feed that moved). */
  function redirect(path: string, to: string): string {
    routes.set(path, (res) => {
      res.writeHead(301, { location: to });
      res.end();
    });
    return `${base}${path}`;
  }

  const query = <T extends object = Row>(text: string, params: unknown[] = []) =>
    server.running.deps.orm.em.fork().getConnection().execute<T[]>(text, params, 'all');
  const rowsOf = (ids: number[]) =>
    query(
      `select id, name, creator, feed_url, feed_url_key, verified_at is not null as verified, fetch_error, podcast_guid
         from podcasts where id = any(?::int[]) order by id`,
      [`{${ids.join(',')}}`],
    );
  const rowByUrl = async (url: string) =>
    (
      await query(
        'select id, verified_at is not null as verified, fetch_error from podcasts where feed_url_key = podcast_feed_key(?)',
        [url],
      )
    )[0];
  const libraryOf = async (person: LoginResponse) =>
    (
      await query<{ podcast_id: number }>(
        'select podcast_id from user_podcasts where user_id = ? order by podcast_id',
        [person.user.id],
      )
    ).map((r) => r.podcast_id);
  const episodesOf = async (podcastId: number) =>
    (
      await query<{ guid: string }>('select guid from podcast_episodes where podcast_id = ? order by guid', [podcastId])
    ).map((r) => r.guid);

  async function upload(person: LoginResponse, outlines: { title?: string; url: string }[]) {
    const xml = `<opml version="2.0"><body>${outlines
      .map((o) => `<outline type="rss"${o.title === undefined ? '' : ` text="${o.title}"`} xmlUrl="${o.url}"/>`)
      .join('')}</body></opml>`;
    const form = new FormData();
    form.append('opml', new Blob([xml]), 'subscriptions.opml');
    const res = await server.call('POST', `/api/users/${person.user.id}/podcasts/opml`, { token: person.token, form });
    expect(res.status).toBe(202);
    return res.json as { added: number; jobIds: string[] };
  }

  /** Waits until the worker has finished these feed reads (and their merges). */
  async function readsDone(jobIds: string[]) {
    for (const id of jobIds) {
      await until(async () => (await (await syncQueue.getJob(id))?.getState()) === 'completed', `feed read ${id}`);
    }
  }

  /** Imports these feeds as `person` and waits for the worker to read them. */
  async function importAndRead(person: LoginResponse, outlines: { title?: string; url: string }[]) {
    const answer = await upload(person, outlines);
    await readsDone(answer.jobIds);
    return answer;
  }

  it('a popular title pre-registered with a dead feed does not capture the real show: the import lands on a row that is read and counts for matching', async () => {
    const tag = uniqueName('pop');
    const title = `Popular Show ${tag}`;
    const realUrl = serve(`/real/${tag}.xml`, { title, author: 'Real Author', episodes: [`${tag}-1`] });
    const [attacker, victim, fan] = [await server.login(), await server.login(), await server.login()];

    // The attacker names the title first, with a feed that answers 404: read, it fails.
    await importAndRead(attacker, [{ title, url: `${base}/dead/${tag}.xml` }]);
    const [planted] = await libraryOf(attacker);
    expect(await rowsOf([planted as number])).toEqual([
      expect.objectContaining({ name: title, verified: false, fetch_error: 'the feed answered HTTP 404' }),
    ]);

    // The victim imports the real show under the same title: a row of its own, read by the worker.
    const answer = await importAndRead(victim, [{ title, url: realUrl }]);
    expect(answer).toMatchObject({ added: 1, jobIds: [expect.any(String)] });
    const library = await libraryOf(victim);
    expect(library).not.toContain(planted);
    const [real] = await rowsOf(library);
    expect(real).toMatchObject({ name: title, creator: 'Real Author', feed_url: realUrl, fetch_error: null });
    expect(real?.verified).toBe(true);

    // It counts for matching: others find it, and someone who adds it is shown the victim with it shared.
    const found = await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(title)}`, { token: fan.token });
    expect((found.json as { id: number }[]).map((p) => p.id)).toEqual([real?.id]);
    const added = await server.call('POST', `/api/users/${fan.user.id}/podcasts`, {
      token: fan.token,
      body: { podcastId: real?.id },
    });
    expect(added.status).toBe(201);
    const feed = await server.call('GET', `/api/users/${fan.user.id}/feed?intent=romantic`, { token: fan.token });
    expect(feed.status).toBe(200);
    const card = (feed.json as { id: number; sharedPodcasts: { id: number }[] }[]).find((i) => i.id === victim.user.id);
    expect(card?.sharedPodcasts.map((p) => p.id)).toEqual([real?.id]);
    // The planted row stays the attacker's alone, unread.
    expect((await rowsOf([planted as number]))[0]?.verified).toBe(false);
  });

  it("a feed claiming a verified show's title and author pushes no episodes into it and merges nothing; feeds that agree still merge", async () => {
    const tag = uniqueName('twin');
    const title = `Popular Show ${tag}`;
    const realPath = `/real/${tag}.xml`;
    const guid = podcastGuidOf(`${base}${realPath}`);
    const realUrl = serve(realPath, { title, author: 'Real Author', guid, episodes: [`${tag}-1`, `${tag}-2`] });
    const [victim, attacker] = [await server.login(), await server.login()];
    await importAndRead(victim, [{ title, url: realUrl }]);
    const [realId] = await libraryOf(victim);
    const [real] = await rowsOf([realId as number]);
    expect(real).toMatchObject({ name: title, creator: 'Real Author', podcast_guid: guid });
    expect(real?.verified).toBe(true);

    // The attacker's feed says it is that show, by that author, with episodes of its own.
    const fakeUrl = serve(`/fake/${tag}.xml`, { title, author: 'Real Author', episodes: [`${tag}-invented`] });
    await importAndRead(attacker, [{ title: `Nothing to see ${tag}`, url: fakeUrl }]);
    const [fakeId] = await libraryOf(attacker);
    expect(fakeId).not.toBe(realId);
    const [fake] = await rowsOf([fakeId as number]);
    expect(fake).toMatchObject({ name: title, creator: 'Real Author', feed_url: fakeUrl });
    expect(await episodesOf(realId as number)).toEqual([`${tag}-1`, `${tag}-2`]);
    expect(await rowsOf([realId as number])).toEqual([real]);
    expect(await libraryOf(victim)).toEqual([realId]);

    // Copying the show's podcast:guid as well: the copy's listeners go to the show, its episodes do not.
    const copyUrl = serve(`/copy/${tag}.xml`, { title, author: 'Real Author', guid, episodes: [`${tag}-copied`] });
    await importAndRead(attacker, [{ title: `Still nothing ${tag}`, url: copyUrl }]);
    expect(await rowByUrl(copyUrl)).toBeUndefined();
    expect(await libraryOf(attacker)).toEqual([realId, fakeId].sort((a, b) => (a as number) - (b as number)));
    expect(await episodesOf(realId as number)).toEqual([`${tag}-1`, `${tag}-2`]);
    expect(await rowsOf([realId as number])).toEqual([real]);

    // Feeds that agree merge, whatever their titles: one that moved (redirects to the show's URL)...
    const [movedFan, mirrorFan] = [await server.login(), await server.login()];
    const movedUrl = redirect(`/moved/${tag}.xml`, realUrl);
    await importAndRead(movedFan, [{ title: `Old name ${tag}`, url: movedUrl }]);
    expect(await rowByUrl(movedUrl)).toBeUndefined();
    expect(await libraryOf(movedFan)).toEqual([realId]);
    // ...and a mirror stating the show's own podcast:guid.
    const mirrorUrl = serve(`/mirror/${tag}.xml`, {
      title: `${title} (mirror)`,
      author: 'Mirror Host',
      guid,
      episodes: [`${tag}-1`, `${tag}-2`],
    });
    await importAndRead(mirrorFan, [{ title: `Mirror ${tag}`, url: mirrorUrl }]);
    expect(await rowByUrl(mirrorUrl)).toBeUndefined();
    expect(await libraryOf(mirrorFan)).toEqual([realId]);
    expect(await rowsOf([realId as number])).toEqual([real]);
    expect(await episodesOf(realId as number)).toEqual([`${tag}-1`, `${tag}-2`]);
  });

  it('a feed that read first and claims a show (title, author, podcast:guid) never takes the real feed row and its listeners', async () => {
    const tag = uniqueName('first');
    const title = `Popular Show ${tag}`;
    const realPath = `/real/${tag}.xml`;
    const guid = podcastGuidOf(`${base}${realPath}`);
    const [attacker, victim] = [await server.login(), await server.login()];
    const fakeUrl = serve(`/fake/${tag}.xml`, { title, author: 'Real Author', guid, episodes: [`${tag}-invented`] });
    await importAndRead(attacker, [{ title: `Anything ${tag}`, url: fakeUrl }]);
    const [fakeId] = await libraryOf(attacker);
    expect((await rowsOf([fakeId as number]))[0]).toMatchObject({ name: title, podcast_guid: guid });

    // The victim's file names the real feed without a title (a verified row holding the title would
    // take it: docs/podcasts.md, known limits); its read must not merge it into the attacker's row.
    const realUrl = serve(realPath, { title, author: 'Real Author', guid, episodes: [`${tag}-1`] });
    await importAndRead(victim, [{ url: realUrl }]);
    const real = await rowByUrl(realUrl);
    expect(real?.verified).toBe(true);
    expect(await libraryOf(victim)).toEqual([real?.id]);
    expect(await libraryOf(attacker)).toEqual([fakeId]);
    expect(await episodesOf(real?.id as number)).toEqual([`${tag}-1`]);
    expect(await episodesOf(fakeId as number)).toEqual([`${tag}-invented`]);
  });

  it('40 people importing the real show at once, after a dead feed took its title, end on one row that is read once', async () => {
    const tag = uniqueName('rush');
    const title = `Popular Show ${tag}`;
    const path = `/real/${tag}.xml`;
    const realUrl = serve(path, { title, author: 'Real Author', episodes: [`${tag}-1`] });
    const attacker = await server.login();
    await importAndRead(attacker, [{ title, url: `${base}/dead/${tag}.xml` }]);
    const [planted] = await libraryOf(attacker);

    // Four times the database pool, each with one of four spellings of the feed URL.
    const spellings = [realUrl, `${realUrl}/`, `${realUrl}#latest`, realUrl.replace('http://', 'HTTP://')];
    const people = await Promise.all(Array.from({ length: 40 }, () => server.login()));
    const answers = await Promise.all(
      people.map((person, i) => upload(person, [{ title, url: spellings[i % spellings.length] as string }])),
    );
    expect(answers.map((a) => a.added)).toEqual(people.map(() => 1));
    const jobIds = answers.flatMap((a) => a.jobIds);
    expect(jobIds).toHaveLength(1);

    const rows = new Set((await Promise.all(people.map(libraryOf))).flat());
    expect(rows.size).toBe(1);
    const [rowId] = [...rows];
    expect(rowId).not.toBe(planted);
    await readsDone(jobIds);
    const [row] = await rowsOf([rowId as number]);
    expect(row).toMatchObject({ name: title, creator: 'Real Author', fetch_error: null });
    expect((await rowByUrl(realUrl))?.id).toBe(rowId);
    expect(row?.verified).toBe(true);
    expect(await query('select count(*)::int as n from user_podcasts where podcast_id = ?', [planted])).toEqual([
      { n: 1 },
    ]);
  });

  it('derives podcast:guid from the feed URL as the Podcast Index namespace does', () => {
    // The example of https://podcastindex.org/namespace/1.0#guid.
    expect(podcastGuidOf('https://mp3s.nashownotes.com/pc20rss.xml')).toBe('917393e3-1b1e-5cef-ace4-edaa54e1f810');
    expect(podcastGuidOf('http://mp3s.nashownotes.com/pc20rss.xml/')).toBe('917393e3-1b1e-5cef-ace4-edaa54e1f810');
  });
});
