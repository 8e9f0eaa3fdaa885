import type { EntityManager } from '@mikro-orm/postgresql';
import { LIBRARY_LIMITS } from '@shared/index';
import { findOwnEntry } from '../../core/access';
import { PODCAST_MERGE_LOCK, storableText } from '../../core/db/entities';
import { intArray, sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import { LIBRARY_ENTRY_SELECT, type LibraryRow, type PodcastRow } from '../../core/presenters/podcast.presenter';
import type { OpmlFeed } from './opml';

/** The advisory-lock key space of per-person library writes (the second key is the user id). */
const LIBRARY_LOCK_SPACE = 7_300_001;

// These answer rows; the routes present them (toUserPodcastEntry, with the artwork URLs signed).

/** A page of a user's library (hidden entries included: only its owner may ask), most listened first. */
export async function listLibrary(em: EntityManager, userId: number, page: { limit: number; offset: number }) {
  return sql<LibraryRow>(
    em,
    `${LIBRARY_ENTRY_SELECT} where up.user_id = ?
     order by up.times_listened desc, p.name asc, up.id asc
     limit ? offset ?`,
    [userId, page.limit, page.offset],
  );
}

export async function setHidden(em: EntityManager, entryId: number, userId: number, hidden: boolean) {
  await sql(em, 'update user_podcasts set hidden = ? where id = ? and user_id = ?', [hidden, entryId, userId]);
  return findOwnEntry(em, entryId, userId);
}

export async function removeEntry(em: EntityManager, entryId: number, userId: number): Promise<boolean> {
  const rows = await sql(em, 'delete from user_podcasts where id = ? and user_id = ? returning id', [entryId, userId]);
  return rows.length > 0;
}

/** Feeds per read job: small enough that progress moves, large enough to keep jobs few. */
const FEEDS_PER_JOB = 50;

/** How long a queued feed read holds its claim before another import may queue it again. */
const FETCH_CLAIM_MINUTES = 15;

/** Serialises one person's library writes (limits are counted, then used, in one transaction). */
const lockLibrary = (tx: EntityManager, userId: number) =>
  sql(tx, 'select pg_advisory_xact_lock(?, ?)', [LIBRARY_LOCK_SPACE, userId]);

/** How much of LIBRARY_LIMITS this person has left, read under the library lock. */
async function allowancesOf(tx: EntityManager, userId: number) {
  const [row] = await sql<{ entries: number; new_shows: number }>(
    tx,
    `select (select count(*)::int from user_podcasts where user_id = ?) as entries,
            (select count(*)::int from podcasts where added_by = ? and created_at > now() - interval '1 day') as new_shows`,
    [userId, userId],
  );
  return {
    entries: Math.max(0, LIBRARY_LIMITS.libraryMaxEntries - (row?.entries ?? 0)),
    newShows: Math.max(0, LIBRARY_LIMITS.newCatalogShowsPerDay - (row?.new_shows ?? 0)),
  };
}

/** Adds a catalog podcast by hand; adding one already in the library returns that entry. */
export async function addToLibrary(em: EntityManager, userId: number, podcastId: number) {
  return em.transactional(async (tx) => {
    await lockLibrary(tx, userId);
    const [existing] = await sql<{ id: number }>(
      tx,
      'select id from user_podcasts where user_id = ? and podcast_id = ?',
      [userId, podcastId],
    );
    if (existing) return findOwnEntry(tx, existing.id, userId);
    if ((await allowancesOf(tx, userId)).entries === 0) throw new LibraryFullError();
    // Only a show others may see (or one this person imported) can be added by id.
    const inserted = await sql<{ id: number }>(
      tx,
      `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, id, 'manual', 0, false, now() from podcasts
        where id = ? and (verified_at is not null or added_by = ?)
       on conflict (user_id, podcast_id) do nothing
       returning id`,
      [userId, podcastId, userId],
    );
    const id = inserted[0]?.id;
    return id ? findOwnEntry(tx, id, userId) : null;
  });
}

export class LibraryFullError extends Error {
  constructor() {
    super(
      `Your library holds the most podcasts it can (${LIBRARY_LIMITS.libraryMaxEntries}). Remove some to add others.`,
    );
  }
}

/**
 * Adds the feeds of an OPML file to the user's library, in one transaction and a handful of
 * set-based statements whatever the number of feeds. Each feed resolves to a catalog row
 * (docs/podcasts.md, "One show, one row"): the row with the same normalised feed URL, else the one
 * verified row with the same normalised title (OPML names no author; a row whose feed was never read
 * holds a title anyone could have typed); only feeds matching neither get a new row, unverified and
 * visible to its importer only until its feed is read, and at most
 * LIBRARY_LIMITS.newCatalogShowsPerDay of them per person per day. The library keeps at most
 * LIBRARY_LIMITS.libraryMaxEntries entries. The import never changes a row it matched. Returns
 * which podcasts still need their feed read, and what the limits left out.
 */
export async function importFeeds(em: EntityManager, userId: number, feeds: OpmlFeed[]) {
  return em.transactional(async (tx) => {
    await lockLibrary(tx, userId);
    await sql(tx, 'select pg_advisory_xact_lock_shared(?)', [PODCAST_MERGE_LOCK]);
    const allowances = await allowancesOf(tx, userId);
    // Lists travel as one JSON parameter (the query builder would spread a JS array). The title
    // resolves; the hostname only names a new row when the file gave no title.
    const list = JSON.stringify(
      feeds.map((f) => ({ url: f.feedUrl, title: f.title, name: f.title ?? new URL(f.feedUrl).hostname })),
    );
    const resolved = await sql<{ url: string; name: string; url_key: string; id: number | null }>(
      tx,
      `with feed as (
         select distinct on (podcast_feed_key(f.url)) f.url, f.name,
                podcast_feed_key(f.url) as url_key, podcast_title_key(f.title) as title_key
           from jsonb_to_recordset(?::jsonb) as f(url text, title text, name text)
          order by podcast_feed_key(f.url)
       )
       select url, name, url_key, coalesce(
                (select p.id from podcasts p where p.feed_url_key = feed.url_key),
                (select min(p.id) from podcasts p
                  where p.name_key = feed.title_key and p.verified_at is not null having count(*) = 1)) as id
         from feed order by url_key`,
      [list],
    );
    const matchedIds = resolved.flatMap((r) => (r.id === null ? [] : [r.id]));
    const unknown = resolved.filter((r) => r.id === null);
    const creatable = unknown.slice(0, allowances.newShows);
    // New rows go in in key order, so imports of overlapping files wait for each other in one order
    // (no deadlock); a row a concurrent import has just added is left to it (do nothing).
    if (creatable.length > 0) {
      await sql(
        tx,
        `insert into podcasts (feed_url, name, created_at, added_by, verified_at)
         select f.url, f.name, now(), ?, null from jsonb_to_recordset(?::jsonb) as f(url text, name text)
         on conflict do nothing`,
        [userId, JSON.stringify(creatable.map((r) => ({ url: r.url, name: r.name })))],
      );
    }
    // Fresh snapshot: rows inserted above or by the import this one waited for.
    const podcasts = await sql<{ id: number; feed_url: string | null }>(
      tx,
      `select id, feed_url from podcasts
        where id = any(?::int[]) or feed_url_key in (select jsonb_array_elements_text(?::jsonb))`,
      [intArray(matchedIds), JSON.stringify(creatable.map((r) => r.url_key))],
    );
    const ids = podcasts.map((p) => p.id).sort((a, b) => a - b);
    const already = await sql<{ podcast_id: number }>(
      tx,
      'select podcast_id from user_podcasts where user_id = ? and podcast_id = any(?::int[])',
      [userId, intArray(ids)],
    );
    const inLibrary = new Set(already.map((r) => r.podcast_id));
    const toAdd = ids.filter((id) => !inLibrary.has(id)).slice(0, allowances.entries);
    const added = await sql<{ podcast_id: number }>(
      tx,
      `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       select ?, ids.id, 'opml', 0, false, now() from unnest(?::int[]) as ids(id)
       on conflict (user_id, podcast_id) do nothing
       returning podcast_id`,
      [userId, intArray(toAdd)],
    );
    const overQuota = unknown.length - creatable.length;
    const overLibrary = ids.length - inLibrary.size - toAdd.length;
    const addedIds = new Set(added.map((r) => r.podcast_id));
    // Only rows with a feed of their own are read (a row matched by title may have none).
    const readable = podcasts.filter((p) => p.feed_url && (addedIds.has(p.id) || inLibrary.has(p.id))).map((p) => p.id);
    // One queued read per feed, of feeds not read in the last day: a feed another import (or this
    // one, repeated) already queued is not queued again; a claim older than FETCH_CLAIM_MINUTES is
    // taken over (its job was lost). Checked on the row as it is now, so a read that finished since
    // this import looked at the row does not get a second one.
    const claimed = await sql<{ id: number }>(
      tx,
      `update podcasts set fetch_queued_at = now()
        where id = any(?::int[])
          and (last_fetched_at is null or last_fetched_at < now() - interval '1 day')
          and (fetch_queued_at is null or fetch_queued_at < now() - make_interval(mins => ?))
        returning id`,
      [intArray(readable), FETCH_CLAIM_MINUTES],
    );
    // The jobs commit with the entries (the outbox): the feed reads, and the recompute of who
    // matches this person when their library grew.
    const staleIds = claimed.map((r) => r.id).sort((a, b) => a - b);
    const jobIds: string[] = [];
    for (let i = 0; i < staleIds.length; i += FEEDS_PER_JOB) {
      const podcastIds = staleIds.slice(i, i + FEEDS_PER_JOB);
      jobIds.push(await stageJob(tx, 'podcastsSync', { source: 'rss', userId, podcastIds }));
    }
    if (added.length > 0) await stageJob(tx, 'matchesRecompute', { scope: 'user', userId });
    return {
      added: added.length,
      alreadyInLibrary: inLibrary.size,
      jobIds,
      notAdded: overQuota + overLibrary,
      limitNote: limitNote(overQuota, overLibrary),
    };
  });
}

function limitNote(overQuota: number, overLibrary: number): string | null {
  if (overLibrary > 0) {
    return `Your library holds at most ${LIBRARY_LIMITS.libraryMaxEntries} podcasts: ${overLibrary} more were not added.`;
  }
  if (overQuota > 0) {
    return `At most ${LIBRARY_LIMITS.newCatalogShowsPerDay} shows new to PodMatch can be added per day: ${overQuota} were left out. Import the file again tomorrow for the rest.`;
  }
  return null;
}

/**
 * Catalog search on normalised names (podcast_title_key: case, accents, punctuation, a leading
 * "the"): the exact title first, then titles starting with the query, then titles with a word
 * starting with it, then by trigram word similarity to the name or the creator, which tolerates
 * typos. Shows an import created appear only once their feed was read, except to their importer.
 */
export async function searchCatalog(
  em: EntityManager,
  query: string,
  limit: number,
  viewerId: number,
): Promise<(PodcastRow & { category: string | null })[]> {
  type Row = PodcastRow & { category: string | null };
  return em.transactional(async (tx) => {
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
       where (name_key like ? or name_key like ? or ? <% name_key or ? <% podcast_title_key(creator))
         and (verified_at is not null or added_by = ?)
       order by case when name_key = ? then 0 when name_key like ? then 1 when name_key like ? then 2 else 3 end,
                greatest(word_similarity(?, name_key), coalesce(word_similarity(?, podcast_title_key(creator)), 0)) desc,
                name asc, id asc
       limit ?`,
      [prefix, wordPrefix, key, key, viewerId, key, prefix, wordPrefix, key, key, limit],
    );
  });
}
