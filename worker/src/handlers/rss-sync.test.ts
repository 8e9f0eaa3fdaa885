import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PodcastEpisodeSchema, PodcastSchema } from '@server/core/db/entities';
import { sql } from '@server/core/db/sql';
import { createLogger } from '@server/core/logger';
import { DEFAULT_FETCH_OPTIONS, FetchRefusedError, safeFetchText } from '@server/core/net/safe-fetch';
import { nextEvent, startTestServer, type TestServer, testEnv } from '@server/test/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';
import { parseDuration, syncFeed } from './rss-sync';

const rss = (title: string) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
  <channel>
    <title>${title}</title>
    <description>A show about &lt;b&gt;rare&lt;/b&gt; things.</description>
    <itunes:author>Feed Author</itunes:author>
    <itunes:image href="https://cdn.example.com/art.jpg"/>
    <itunes:category text="Science"><itunes:category text="Natural Sciences"/></itunes:category>
    <itunes:category text="Education"/>
    <item><title>Episode 2: Moths</title><guid>ep-2</guid><pubDate>Thu, 19 Nov 2026 10:00:00 GMT</pubDate><itunes:episode>2</itunes:episode><itunes:duration>1:02:03</itunes:duration><description>All about moths.</description></item>
    <item><title>Episode 1: Bees</title><guid>ep-1</guid><pubDate>Thu, 12 Nov 2026 10:00:00 GMT</pubDate><itunes:episode>1</itunes:episode><itunes:duration>3600</itunes:duration></item>
  </channel>
</rss>`;

describe('feed reading', () => {
  let feeds: http.Server;
  let base: string;
  let server: TestServer;
  let worker: RunningWorker;

  beforeAll(async () => {
    feeds = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/big.xml') {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end('x'.repeat(6 * 1024 * 1024));
      } else if (path === '/slow.xml') {
        res.writeHead(200);
        res.write('<rss>');
        setTimeout(() => res.end('</rss>'), 3000);
      } else if (path === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (path === '/broken.xml') {
        res.writeHead(200);
        res.end('<rss><channel><title>Oops');
      } else if (path === '/gone.xml') {
        res.writeHead(404);
        res.end('not here');
      } else {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(rss(`Show ${req.url}`));
      }
    });
    await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
    // The local feeds live on a random port: the development allow-list lets the import name them.
    server = await startTestServer({ FEED_FETCH_ALLOWED_IPS: '127.0.0.1' });
    worker = await startWorker(
      loadWorkerConfig(testEnv({ FEED_FETCH_ALLOWED_IPS: '127.0.0.1' })),
      createLogger('worker', 'silent'),
    );
  });
  afterAll(async () => {
    await worker.close();
    await server.close();
    feeds.close();
  });

  const newPodcast = async (feedUrl: string) => {
    const em = server.running.deps.orm.em.fork();
    const podcast = em.create(PodcastSchema, { name: 'Placeholder', feedUrl, categories: [] });
    await em.flush();
    return podcast.id;
  };

  it('a show an import created becomes visible to others only once its feed was read; odd ports are refused', async () => {
    const em = server.running.deps.orm.em.fork();
    const imported = em.create(PodcastSchema, {
      name: 'Planted title',
      feedUrl: `${base}/verify-${Date.now()}.xml`,
      categories: [],
      verifiedAt: null,
      fetchQueuedAt: new Date(),
    });
    await em.flush();
    // As an import leaves it (the entity stamps rows made through it, the trusted sources, as read).
    await sql(em.fork(), 'update podcasts set verified_at = null where id = ?', [imported.id]);
    const libraryChanges = async () =>
      Number(
        (
          await sql<{ n: string }>(
            em.fork(),
            'select case when is_called then last_value else 0 end as n from library_changes',
          )
        )[0]?.n,
      );
    const before = await libraryChanges();
    expect((await syncFeed(em.fork(), imported.id, ['127.0.0.1'])).error).toBeNull();
    const read = await em.fork().findOneOrFail(PodcastSchema, imported.id);
    expect(read.verifiedAt).toBeInstanceOf(Date);
    // It counts for matching from now on: the freshness check must see a change.
    expect(await libraryChanges()).toBeGreaterThan(before);
    expect(read.fetchQueuedAt).toBeNull();
    expect(read.name).not.toBe('Planted title');

    // Without the development allow-list, feeds are read from ports 80 and 443 only.
    const oddPort = await newPodcast(`http://feeds-${Date.now()}.example.com:8080/feed.xml`);
    expect((await syncFeed(em.fork(), oddPort, [])).error).toMatch(/Port 8080 is not allowed/);
    const refused = await em.fork().findOneOrFail(PodcastSchema, oddPort);
    expect(refused.fetchError).toMatch(/Port 8080/);
  });

  it('stores the show details and its recent episodes', async () => {
    const id = await newPodcast(`${base}/science-${Date.now()}.xml`);
    const em = server.running.deps.orm.em.fork();
    expect((await syncFeed(em, id, ['127.0.0.1'])).error).toBeNull();
    const podcast = await em.fork().findOneOrFail(PodcastSchema, id);
    expect(podcast).toMatchObject({
      creator: 'Feed Author',
      imageUrl: 'https://cdn.example.com/art.jpg',
      category: 'Science',
      categories: ['Science', 'Education'],
      description: 'A show about rare things.',
      fetchError: null,
    });
    expect(podcast.name).toMatch(/^Show \/science-/);
    const episodes = await em
      .fork()
      .find(PodcastEpisodeSchema, { podcastId: id }, { orderBy: { episodeNumber: 'asc' } });
    expect(episodes.map((e) => [e.episodeNumber, e.title, e.durationSeconds])).toEqual([
      [1, 'Episode 1: Bees', 3600],
      [2, 'Episode 2: Moths', 3723],
    ]);
    // Reading it again updates in place.
    expect((await syncFeed(em.fork(), id, ['127.0.0.1'])).error).toBeNull();
    expect(await em.fork().count(PodcastEpisodeSchema, { podcastId: id })).toBe(2);
  });

  it.each([
    ['a loopback address when not allowed', '/plain.xml', [], /not allowed/],
    ['a redirect to the cloud metadata address', '/to-metadata', ['127.0.0.1'], /not allowed/],
    ['a feed over 5 MB', '/big.xml', ['127.0.0.1'], /larger than/],
    ['a broken feed', '/broken.xml', ['127.0.0.1'], /.+/],
    ['a missing feed', '/gone.xml', ['127.0.0.1'], /HTTP 404/],
  ])('records an error for %s and keeps the podcast', async (_label, path, allowed, error) => {
    const id = await newPodcast(`${base}${path}?n=${Math.random()}`);
    const em = server.running.deps.orm.em.fork();
    expect((await syncFeed(em, id, allowed)).error).toMatch(error);
    const podcast = await em.fork().findOneOrFail(PodcastSchema, id);
    expect(podcast.fetchError).toMatch(error);
    expect(podcast.name).toBe('Placeholder');
  });

  it('refuses private, link-local and non-http targets before connecting, and slow answers', async () => {
    for (const url of ['http://10.1.2.3/feed', 'http://169.254.169.254/', 'http://[::1]/', 'http://0.0.0.0/']) {
      await expect(safeFetchText(url)).rejects.toThrow(/not allowed/);
    }
    await expect(safeFetchText('file:///etc/passwd')).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(safeFetchText('gopher://example.com/')).rejects.toBeInstanceOf(FetchRefusedError);
    await expect(
      safeFetchText(`${base}/slow.xml`, { ...DEFAULT_FETCH_OPTIONS, timeoutMs: 500, allowedIps: ['127.0.0.1'] }),
    ).rejects.toThrow(/Timed out/);
  });

  it('parses durations', () => {
    expect(parseDuration('1:02:03')).toBe(3723);
    expect(parseDuration('62:03')).toBe(3723);
    expect(parseDuration('abc')).toBeNull();
    expect(parseDuration(undefined)).toBeNull();
  });

  it('reads the feeds of an OPML import in the worker and reports progress to the user', async () => {
    const { token, user } = await server.login();
    const socket = await server.socket(token);
    const urls = [1, 2, 3].map((n) => `${base}/import-${user.id}-${n}.xml`);
    const xml = `<opml version="2.0"><body>${urls.map((u) => `<outline type="rss" text="T" xmlUrl="${u}"/>`).join('')}</body></opml>`;
    const form = new FormData();
    form.append('opml', new Blob([xml]), 'subs.opml');
    const res = await fetch(`${server.url}/api/users/${user.id}/podcasts/opml`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const body = (await res.json()) as { jobIds: string[] };
    expect(res.status).toBe(202);
    expect(body.jobIds).toHaveLength(1);
    const [done] = await nextEvent(
      socket,
      'job:status',
      (e) => e.jobId === body.jobIds[0] && e.state === 'completed',
      20_000,
    );
    expect(done.name).toBe('podcasts.sync');
    const list = await server.call('GET', `/api/users/${user.id}/podcasts`, { token });
    expect(list.json.map((e: { podcast: { name: string; creator: string } }) => e.podcast.creator)).toEqual([
      'Feed Author',
      'Feed Author',
      'Feed Author',
    ]);
  });
});
