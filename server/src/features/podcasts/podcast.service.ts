import type { EntityManager } from '@mikro-orm/postgresql';
import type { PodcastSummary } from '@shared/index';
import { PODCAST_MERGE_LOCK, storableText } from '../../core/db/entities';
import { intArray, sql } from '../../core/db/sql';
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
 * Adds the feeds of an OPML file to the user's library, in one transaction and a handful of
 * set-based statements whatever the number of feeds. Each feed resolves to a catalog row
 * (docs/podcasts.md, "One show, one row"): the row with the same normalised feed URL, else the one
 * row with the same normalised title (OPML names no author); only feeds matching neither get a new
 * row. The import never changes a row it matched. Returns which podcasts still need their feed read.
 */
export async function importFeeds(em: EntityManager, userId: number, feeds: OpmlFeed[]) {
  return em.transactional(async (tx) => {
    await sql(tx, 'select pg_advisory_xact_lock_shared(?)', [PODCAST_MERGE_LOCK]);
    // Lists travel as one JSON parameter (the query builder would spread a JS array). The title
    // resolves; the hostname only names a new row when the file gave no title.
    const list = JSON.stringify(
      feeds.map((f) => ({ url: f.feedUrl, title: f.title, name: f.title ?? new URL(f.feedUrl).hostname })),
    );
    // New rows go in in key order, so imports of overlapping files wait for each other in one order
    // (no deadlock); a row a concurrent import has just added is left to it (do nothing).
    const resolved = await sql<{ url_key: string; id: number | null }>(
      tx,
      `with feed as (
         select distinct on (podcast_feed_key(f.url)) f.url, f.name,
                podcast_feed_key(f.url) as url_key, podcast_title_key(f.title) as title_key
           from jsonb_to_recordset(?::jsonb) as f(url text, title text, name text)
          order by podcast_feed_key(f.url)
       ), resolved as (
         select feed.*, coalesce(
                  (select p.id from podcasts p where p.feed_url_key = feed.url_key),
                  (select min(p.id) from podcasts p where p.name_key = feed.title_key having count(*) = 1)) as id
           from feed
       ), inserted as (
         insert into podcasts (feed_url, name, created_at)
         select url, name, now() from resolved where id is null order by url_key
         on conflict do nothing
       )
       select url_key, id from resolved`,
      [list],
    );
    const matchedIds = resolved.flatMap((r) => (r.id === null ? [] : [r.id]));
    const newKeys = resolved.flatMap((r) => (r.id === null ? [r.url_key] : []));
    // Fresh snapshot: rows inserted above or by the import this one waited for.
    const podcasts = await sql<{ id: number; feed_url: string | null; last_fetched_at: Date | null }>(
      tx,
      `select id, feed_url, last_fetched_at from podcasts
        where id = any(?::int[]) or feed_url_key in (select jsonb_array_elements_text(?::jsonb))`,
      [intArray(matchedIds), JSON.stringify(newKeys)],
    );
    const ids = podcasts.map((p) => p.id).sort((a, b) => a - b);
    const added = await sql<{ podcast_id: number }>(
      tx,
      `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, ids.id, 'opml', 0, false, now() from unnest(?::int[]) as ids(id)
       on conflict (user_id, podcast_id) do nothing
       returning podcast_id`,
      [userId, intArray(ids)],
    );
    // Only rows with a feed of their own are read (a row matched by title may have none).
    const dayAgo = Date.now() - 24 * 3600 * 1000;
    const stale = podcasts
      .filter((p) => p.feed_url && (!p.last_fetched_at || new Date(p.last_fetched_at).getTime() < dayAgo))
      .map((p) => p.id);
    return { added: added.length, alreadyInLibrary: ids.length - added.length, staleIds: stale };
  });
}

/**
 * Catalog search on normalised names (podcast_title_key: case, accents, punctuation, a leading
 * "the"): the exact title first, then titles starting with the query, then titles with a word
 * starting with it, then by trigram word similarity to the name or the creator, which tolerates
 * typos.
 */
export async function searchCatalog(em: EntityManager, query: string, limit: number): Promise<PodcastSummary[]> {
  type Row = { id: number; name: string; creator: string | null; image_url: string | null; category: string | null };
  const rows = await em.transactional(async (tx) => {
    // The default threshold (0.6) misses two typos in a short query; 0.35 still keeps noise out.
    const [normalised] = await sql<{ key: string | null }>(
      tx,
      `select set_config('pg_trgm.word_similarity_threshold', '0.35', true), podcast_title_key(?) as key`,
      [storableText(query, 100)],
    );
    const key = normalised?.key;
    if (!key) return [];
    // Keys hold no LIKE wildcards: normalisation turns %, _ and backslash into spaces.
    const [prefix, wordPrefix] = [`${key}%`, `% ${key}%`];
    return sql<Row>(
      tx,
      `select id, name, creator, image_url, category from podcasts
       where name_key like ? or name_key like ? or ? <% name_key or ? <% podcast_title_key(creator)
       order by case when name_key = ? then 0 when name_key like ? then 1 when name_key like ? then 2 else 3 end,
                greatest(word_similarity(?, name_key), coalesce(word_similarity(?, podcast_title_key(creator)), 0)) desc,
                name asc, id asc
       limit ?`,
      [prefix, wordPrefix, key, key, key, prefix, wordPrefix, key, key, limit],
    );
  });
  return rows.map((r) => ({ id: r.id, name: r.name, creator: r.creator, imageUrl: r.image_url, category: r.category }));
}
