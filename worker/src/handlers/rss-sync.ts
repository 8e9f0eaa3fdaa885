import type { EntityManager } from '@mikro-orm/postgresql';
import { PodcastSchema, storableText } from '@server/core/db/entities';
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
}
interface ItunesItem {
  itunes?: { episode?: string; duration?: string; summary?: string };
}

const parser: Parser<ItunesFeed, ItunesItem> = new Parser({ timeout: 0, maxRedirects: 0 });

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

/** Reads one feed and stores the show's details and its recent episodes; returns an error text or null. */
export async function syncFeed(em: EntityManager, podcastId: number, allowedIps: string[]): Promise<string | null> {
  const podcast = await em.findOne(PodcastSchema, podcastId);
  if (!podcast?.feedUrl) return 'no feed URL';
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
    podcast.lastFetchedAt = new Date();
    podcast.fetchError = null;
    podcast.fetchQueuedAt = null;
    // Read successfully: from now on others see its name and artwork (docs/podcasts.md).
    podcast.verifiedAt ??= new Date();
    await em.flush();

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
    return null;
  } catch (error) {
    const message = (error as Error).message.slice(0, 500);
    podcast.lastFetchedAt = new Date();
    podcast.fetchError = message;
    podcast.fetchQueuedAt = null;
    await em.flush();
    return message;
  }
}

/**
 * A row whose feed, once read, gives the title and author of exactly one other row is that show
 * imported under another address: its entries and episodes move to the other row, which stays as
 * it is, and it is deleted (podcasts_merge; docs/podcasts.md, "One show, one row"). Returns the
 * people whose library changed.
 */
export async function mergeIntoTwin(em: EntityManager, podcastId: number): Promise<number[]> {
  return em.transactional(async (tx) => {
    const [twin] = await sql<{ id: number }>(
      tx,
      `select min(c.id) as id from podcasts p
         join podcasts c on c.name_key = p.name_key and c.id <> p.id
                        and podcast_title_key(c.creator) = podcast_title_key(p.creator)
        where p.id = ? and p.spotify_id is null
       having count(*) = 1`,
      [podcastId],
    );
    if (!twin) return [];
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
      const error = await syncFeed(ctx.em.fork(), id, ctx.feedFetchAllowedIps);
      if (error) {
        failed++;
        ctx.logger.warn(`feed of podcast ${id} failed: ${error}`);
      } else {
        // A merge that fails (a deadlock with a recompute) is retried by the next read of the feed.
        const moved = await mergeIntoTwin(ctx.em.fork(), id).catch((mergeError: Error) => {
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
