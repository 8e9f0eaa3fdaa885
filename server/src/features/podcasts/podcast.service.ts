import type { EntityManager } from '@mikro-orm/postgresql';
import type { PodcastSummary } from '@shared/index';
import { sql } from '../../core/db/sql';
import { type LibraryRow, toUserPodcastEntry } from '../../core/presenters/podcast.presenter';
import type { OpmlFeed } from './opml';

const LIBRARY_SELECT = `
  select up.id, up.user_id, up.podcast_id, up.episode_count, up.last_listened, up.hidden, up.times_listened,
         up.last_episode, up.source, p.name, p.creator, p.image_url, p.category
  from user_podcasts up join podcasts p on p.id = up.podcast_id`;

/** A user's whole library (hidden entries included: only its owner may ask), most listened first. */
export async function listLibrary(em: EntityManager, userId: number) {
  const rows = await sql<LibraryRow>(
    em,
    `${LIBRARY_SELECT} where up.user_id = ?
     order by up.times_listened desc, p.name asc, up.id asc`,
    [userId],
  );
  return rows.map(toUserPodcastEntry);
}

/** One entry, only if it belongs to this user (others get nothing, not even its existence). */
export async function findOwnEntry(em: EntityManager, entryId: number, userId: number) {
  const rows = await sql<LibraryRow>(em, `${LIBRARY_SELECT} where up.id = ? and up.user_id = ?`, [entryId, userId]);
  return rows[0] ? toUserPodcastEntry(rows[0]) : null;
}

export async function setHidden(em: EntityManager, entryId: number, userId: number, hidden: boolean) {
  await sql(em, 'update user_podcasts set hidden = ? where id = ? and user_id = ?', [hidden, entryId, userId]);
  return findOwnEntry(em, entryId, userId);
}

export async function removeEntry(em: EntityManager, entryId: number, userId: number): Promise<boolean> {
  const rows = await sql(em, 'delete from user_podcasts where id = ? and user_id = ? returning id', [entryId, userId]);
  return rows.length > 0;
}

/** Adds a catalog podcast by hand; adding one already in the library returns that entry. */
export async function addToLibrary(em: EntityManager, userId: number, podcastId: number) {
  const inserted = await sql<{ id: number }>(
    em,
    `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
     select ?, id, 'manual', 0, false, now() from podcasts where id = ?
     on conflict (user_id, podcast_id) do update set user_id = excluded.user_id
     returning id`,
    [userId, podcastId],
  );
  const id = inserted[0]?.id;
  return id ? findOwnEntry(em, id, userId) : null;
}

/**
 * Adds the feeds of an OPML file to the catalog (keyed by feed URL) and to the user's library,
 * in one transaction and a handful of set-based statements, whatever the number of feeds.
 * Returns which podcasts still need their feed read.
 */
export async function importFeeds(em: EntityManager, userId: number, feeds: OpmlFeed[]) {
  return em.transactional(async (tx) => {
    // Lists travel as one JSON parameter (the query builder would spread a JS array).
    const rows = JSON.stringify(feeds.map((f) => ({ url: f.feedUrl, name: f.title ?? new URL(f.feedUrl).hostname })));
    await sql(
      tx,
      `insert into podcasts (feed_url, name, created_at)
       select u.url, u.name, now() from jsonb_to_recordset(?::jsonb) as u(url text, name text)
       on conflict (feed_url) do nothing`,
      [rows],
    );
    const podcasts = await sql<{ id: number; last_fetched_at: Date | null }>(
      tx,
      `select p.id, p.last_fetched_at from podcasts p
       join jsonb_to_recordset(?::jsonb) as u(url text, name text) on u.url = p.feed_url`,
      [rows],
    );
    const ids = podcasts.map((p) => p.id);
    const added = await sql<{ podcast_id: number }>(
      tx,
      `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, ids.id::int, 'opml', 0, false, now() from jsonb_array_elements_text(?::jsonb) as ids(id)
       on conflict (user_id, podcast_id) do nothing
       returning podcast_id`,
      [userId, JSON.stringify(ids)],
    );
    const dayAgo = Date.now() - 24 * 3600 * 1000;
    const stale = podcasts
      .filter((p) => !p.last_fetched_at || new Date(p.last_fetched_at).getTime() < dayAgo)
      .map((p) => p.id);
    return { added: added.length, alreadyInLibrary: ids.length - added.length, staleIds: stale };
  });
}

/** Catalog search tolerant of prefixes and small typos (pg_trgm word similarity). */
export async function searchCatalog(em: EntityManager, query: string, limit: number): Promise<PodcastSummary[]> {
  const q = query.toLowerCase();
  const prefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  type Row = { id: number; name: string; creator: string | null; image_url: string | null; category: string | null };
  // The default threshold (0.6) misses two typos in a short query; 0.35 still keeps noise out.
  const rows = await em.transactional(async (tx) => {
    await sql(tx, `select set_config('pg_trgm.word_similarity_threshold', '0.35', true)`);
    return sql<Row>(
      tx,
      `select id, name, creator, image_url, category from podcasts
       where lower(name) like ? or ? <% lower(name) or ? <% lower(coalesce(creator, ''))
       order by (lower(name) like ?) desc,
                greatest(word_similarity(?, lower(name)), word_similarity(?, lower(coalesce(creator, '')))) desc,
                name asc, id asc
       limit ?`,
      [prefix, q, q, prefix, q, q, limit],
    );
  });
  return rows.map((r) => ({ id: r.id, name: r.name, creator: r.creator, imageUrl: r.image_url, category: r.category }));
}
