import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { PODCAST_MERGE_LOCK, PodcastSchema, storableText } from '@server/core/db/entities';
import { intArray, sql } from '@server/core/db/sql';
import { DEFAULT_FETCH_OPTIONS, FEED_PORTS, safeFetchText } from '@server/core/net/safe-fetch';
import type { JobPayload, JobResult } from '@shared/index';
import Parser from 'rss-parser';
import type { JobContext } from './handler';

type RssPayload = Extract<JobPayload<'podcastsSync'>, { source: 'rss' }>;

const RECENT_EPISODES = 20;
const PARALLEL_FETCHES = 4;

interface ItunesFeed {
  itunes?: { author?: string; image?: string; categories?: string[]; summary?: string };
  /** The Podcast Index namespace's id of the show (https://podcastindex.org/namespace/1.0#guid). */
  'podcast:guid'?: unknown;
}
interface ItunesItem {
  itunes?: { episode?: string; duration?: string; summary?: string };
}

const parser: Parser<ItunesFeed, ItunesItem> = new Parser({
  timeout: 0,
  maxRedirects: 0,
  customFields: { feed: ['podcast:guid'] },
});

/** The Podcast Index namespace's UUIDv5 namespace for show guids. */
const PODCAST_GUID_NAMESPACE = Buffer.from('ead4c236bf5858c6a2c6a6b28d128cb6', 'hex');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The `podcast:guid` a feed at this URL was given when it was created: the UUIDv5 of the URL
 * without its scheme and trailing slashes, in the Podcast Index namespace. Only the feed at that
 * URL is the guid's own; any other feed stating it merely claims it.
 */
export function podcastGuidOf(feedUrl: string): string {
  const name = feedUrl
    .trim()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/\/+$/, '');
  const hash = createHash('sha1').update(PODCAST_GUID_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The feed's `podcast:guid` when it is a UUID, lower-cased; anything else is ignored. */
function statedGuid(value: unknown): string | null {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return UUID.test(text) ? text : null;
}

/** What one read of a feed gave: an error text, or the URL the feed was served from (after redirects). */
export type FeedRead = { error: string; servedFrom?: undefined } | { error: null; servedFrom: string };

/** "1:02:03", "62:03" or "3723" to seconds. */
export function parseDuration(value: string | undefined): number | null {
  if (!value) return null;
  const parts = value.trim().split(':').map(Number);
  if (parts.some((n) => !Number.isFinite(n))) return null;
  const seconds = parts.reduce((total, n) => total * 60 + n, 0);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds) : null;
}

const clean = (text: string | undefined, max: number) =>
  text ? storableText(text.replace(/<[^>]*>/g, ''), max) || null : null;

/** Reads one feed and stores the show's details and its recent episodes. */
export async function syncFeed(em: EntityManager, podcastId: number, allowedIps: string[]): Promise<FeedRead> {
  const podcast = await em.findOne(PodcastSchema, podcastId);
  if (!podcast?.feedUrl) return { error: 'no feed URL' };
  try {
    // Ports 80 and 443 only; the development allow-list (local test feeds) lifts that too.
    const ports = allowedIps.length > 0 ? undefined : FEED_PORTS;
    const response = await safeFetchText(podcast.feedUrl, { ...DEFAULT_FETCH_OPTIONS, allowedIps, ports });
    if (response.status >= 400) throw new Error(`the feed answered HTTP ${response.status}`);
    const feed = await parser.parseString(response.body);
    const categories = [...new Set((feed.itunes?.categories ?? []).map((c) => c.trim()).filter(Boolean))].slice(0, 5);
    podcast.name = clean(feed.title, 300) ?? podcast.name;
    podcast.title = clean(feed.title, 300);
    podcast.creator = clean(feed.itunes?.author, 200) ?? podcast.creator ?? null;
    podcast.imageUrl = feed.itunes?.image ?? feed.image?.url ?? podcast.imageUrl ?? null;
    podcast.description = clean(feed.description ?? feed.itunes?.summary, 4000);
    if (categories.length > 0) {
      podcast.categories = categories;
      podcast.category = categories[0] ?? null;
    }
    podcast.podcastGuid = statedGuid(feed['podcast:guid']);
    podcast.lastFetchedAt = new Date();
    podcast.fetchError = null;
    podcast.fetchQueuedAt = null;
    // Read successfully: from now on others see its name and artwork (docs/podcasts.md).
    const firstRead = !podcast.verifiedAt;
    podcast.verifiedAt ??= new Date();
    await em.flush();
    // A show that starts to count changes what matching reads as much as a library edit does: the
    // freshness check must see it (docs/matching.md, "Freshness").
    if (firstRead) await sql(em, `select nextval('library_changes')`);

    const items = (feed.items ?? []).slice(0, RECENT_EPISODES);
    for (const item of items) {
      const guid = (item.guid ?? item.link ?? item.title ?? '').slice(0, 500);
      if (!guid || !item.title) continue;
      const published = item.isoDate ? new Date(item.isoDate) : null;
      await sql(
        em,
        `insert into podcast_episodes (podcast_id, guid, title, description, episode_number, published_at, duration_seconds)
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict (podcast_id, guid) do update set title = excluded.title, description = excluded.description,
           episode_number = excluded.episode_number, published_at = excluded.published_at,
           duration_seconds = excluded.duration_seconds`,
        [
          podcastId,
          guid,
          clean(item.title, 500),
          clean(item.contentSnippet ?? item.itunes?.summary, 2000),
          item.itunes?.episode && /^\d+$/.test(item.itunes.episode) ? Number(item.itunes.episode) : null,
          published && !Number.isNaN(published.getTime()) ? published : null,
          parseDuration(item.itunes?.duration),
        ],
      );
    }
    return { error: null, servedFrom: response.url };
  } catch (error) {
    const message = (error as Error).message.slice(0, 500);
    podcast.lastFetchedAt = new Date();
    podcast.fetchError = message;
    podcast.fetchQueuedAt = null;
    await em.flush();
    return { error: message };
  }
}

/**
 * A row whose feed was just read is merged into another row only when their feeds agree, never on
 * what the feed says about itself (title, author: anyone can publish a feed claiming a popular
 * show's; docs/podcasts.md, "One show, one row"):
 * - the read was served from the other row's feed URL (this feed redirects there), or
 * - both feeds state the same `podcast:guid` and it is the other row's own (podcastGuidOf its URL).
 * The other row must be verified and stays as it is: this row's entries move to it, this row's
 * episodes do not (they came from this row's URL; the kept row's come from its own reads), and
 * this row is deleted (podcasts_merge). Returns the people whose library changed.
 */
export async function mergeIntoTwin(em: EntityManager, podcastId: number, servedFrom: string): Promise<number[]> {
  return em.transactional(async (tx) => {
    const candidates = await sql<{ id: number; feed_url: string; by_url: boolean; guid: string | null }>(
      tx,
      `select c.id, c.feed_url, c.feed_url_key = podcast_feed_key(?) as by_url, c.podcast_guid as guid
         from podcasts p join podcasts c on c.id <> p.id and c.verified_at is not null and c.feed_url is not null
          and (c.feed_url_key = podcast_feed_key(?) or c.podcast_guid = p.podcast_guid)
        where p.id = ? and p.spotify_id is null and p.verified_at is not null
        order by c.id`,
      [servedFrom, servedFrom, podcastId],
    );
    const twin =
      candidates.find((c) => c.by_url) ?? candidates.find((c) => c.guid && podcastGuidOf(c.feed_url) === c.guid);
    if (!twin) return [];
    // Exclusive from here on, as in podcasts_merge (imports hold it shared while they resolve rows);
    // taken only when there is something to merge, so reads do not hold imports up. The kept row
    // may have been merged away meanwhile: then nothing happens until this feed's next read.
    await sql(tx, 'select pg_advisory_xact_lock(?)', [PODCAST_MERGE_LOCK]);
    const [kept] = await sql<{ id: number }>(tx, 'select id from podcasts where id = ?', [twin.id]);
    if (!kept) return [];
    await sql(tx, 'delete from podcast_episodes where podcast_id = ?', [podcastId]);
    const [merged] = await sql<{ users: number[] }>(tx, 'select podcasts_merge(?::int[], ?::int[]) as users', [
      intArray([podcastId]),
      intArray([twin.id]),
    ]);
    return merged?.users ?? [];
  });
}

/**
 * Reads each podcast's RSS feed for title, author, artwork, categories and recent episodes.
 * A broken feed is recorded on the podcast (fetchError) and does not fail the others.
 */
export async function syncRssFeeds(payload: RssPayload, ctx: JobContext): Promise<JobResult<'podcastsSync'>> {
  let done = 0;
  let failed = 0;
  const queue = [...payload.podcastIds];
  const runOne = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const read = await syncFeed(ctx.em.fork(), id, ctx.feedFetchAllowedIps);
      if (read.error !== null) {
        failed++;
        ctx.logger.warn(`feed of podcast ${id} failed: ${read.error}`);
      } else {
        // A merge that fails (a deadlock with a recompute) is retried by the next read of the feed.
        const moved = await mergeIntoTwin(ctx.em.fork(), id, read.servedFrom).catch((mergeError: Error) => {
          ctx.logger.warn(`podcast ${id} not merged: ${mergeError.message}`);
          return [];
        });
        // Whose shared shows changed; the job's own user is recomputed after the job anyway.
        for (const userId of moved) {
          if (userId !== payload.userId) await ctx.enqueue('matchesRecompute', { scope: 'user', userId });
        }
      }
      done++;
      await ctx.progress(Math.round((done / payload.podcastIds.length) * 100));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_FETCHES }, runOne));
  return { podcasts: done - failed, failed };
}
