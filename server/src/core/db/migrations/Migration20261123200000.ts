import { Migration } from '@mikro-orm/migrations';

/** Scores a podcasts row by its catalog information (spotify id, creator, artwork, categories). */
const CATALOG_INFO = `((spotify_id is not null)::int + (creator is not null)::int + (image_url is not null)::int
  + (cardinality(categories) > 0)::int)`;

/**
 * One show, one catalog row (docs/podcasts.md, "One show, one row").
 * - podcast_feed_key(url): a feed URL without scheme, `www.`, default port, trailing slash and fragment,
 *   host lower-cased (path case and query kept); podcast_title_key(text): lower-cased, without
 *   diacritics, apostrophes, punctuation, a leading "the" and extra spaces ("&" reads "and").
 * - Stored generated columns feed_url_key (unique) and name_key (indexed), so imports and syncs
 *   resolve a whole list of shows in one indexed statement; search ranks on name_key.
 * - podcasts_merge(dups, keeps): moves everything that points at a duplicate to the row kept
 *   (library entries, episodes, precomputed shared podcasts) and deletes the duplicate; used here
 *   and by the RSS sync.
 * - Merges the duplicates already present: same feed_url_key, then same name_key with compatible
 *   authors (equal, or missing on one side). The row kept has the most catalog information, then
 *   the lowest id; its own columns are never changed.
 */
export class Migration20261123200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(String.raw`create or replace function podcast_feed_key(url text) returns text
language sql immutable strict parallel safe as $fn$
  select case when m is null then nullif(btrim(url), '')
    else regexp_replace(regexp_replace(lower(m[1]), '^www\.', ''), '\.$', '')
      || case when m[2] in (':', ':80', ':443') then '' else coalesce(m[2], '') end
      || regexp_replace(m[3], '/+$', '')
      || coalesce(nullif(m[4], '?'), '') end
  from regexp_match(btrim(url), '^[a-z][a-z0-9+.-]*://(?:[^/?#@]*@)?(\[[^]]*\]|[^/?#:]*)(:[0-9]*)?([^?#]*)(\?[^#]*)?', 'i') as m
$fn$;`);

    // Apostrophes vanish ("O'Brien" = "OBrien"); other punctuation and spaces become one space. The
    // ranges are ASCII and Latin-1 punctuation, general and CJK punctuation; letters of any script stay.
    this.addSql(String.raw`create or replace function podcast_title_key(title text) returns text
language sql immutable strict parallel safe as $fn$
  select nullif(left(regexp_replace(btrim(regexp_replace(regexp_replace(
    replace(lower(normalize(title, NFKD)), '&', ' and '),
    '[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0027\u2018\u2019\u02bc\u00b4\u0060]+', '', 'g'),
    '[[:space:]\u0021-\u002f\u003a-\u0040\u005b-\u0060\u007b-\u007e\u00a0-\u00bf\u2000-\u206f\u3000-\u303f]+', ' ', 'g')),
    '^the ', ''), 300), '')
$fn$;`);

    this.addSql(`create or replace function podcasts_merge(p_dup int[], p_keep int[]) returns int[]
language plpgsql volatile as $fn$
declare
  affected int[];
begin
  -- One merge at a time, and none while an import or a sync resolves shows (they hold it shared).
  perform pg_advisory_xact_lock(7346202);
  -- Pairs whose rows both still exist; a row kept is never also merged away.
  select array_agg(m.dup), array_agg(m.keep) into p_dup, p_keep
    from unnest(p_dup, p_keep) as m(dup, keep)
   where m.dup <> m.keep and m.keep <> all(p_dup)
     and exists (select 1 from podcasts where id = m.dup) and exists (select 1 from podcasts where id = m.keep);
  if p_dup is null then return '{}'; end if;
  select coalesce(array_agg(distinct user_id), '{}') into affected from user_podcasts where podcast_id = any(p_dup);

  -- Precomputed feeds: a duplicate's id becomes the kept id, once, where it first appeared. Only
  -- people holding a duplicate can share it, so only their rows are read.
  update feed_candidates fc
     set shared_podcast_ids = array(
       select s.id from (
         select coalesce(m.keep, x.id) as id, min(x.n) as n
           from unnest(fc.shared_podcast_ids) with ordinality as x(id, n)
           left join unnest(p_dup, p_keep) as m(dup, keep) on m.dup = x.id
          group by 1) s
        order by s.n)
   where fc.user_id = any(affected) and fc.shared_podcast_ids && p_dup;

  -- Libraries: one entry per person and show. On a clash the larger figures, the latest listen, and
  -- hidden only if every entry was; a source the person chose (manual, opml) outlives Spotify's.
  insert into user_podcasts as up
    (user_id, podcast_id, episode_count, last_listened, hidden, times_listened, last_episode, source, created_at)
  select d.user_id, m.keep, max(d.episode_count), max(d.last_listened), bool_and(d.hidden), max(d.times_listened),
         (array_agg(d.last_episode order by d.last_listened desc nulls last))[1],
         (array_agg(d.source order by array_position(array['manual', 'opml', 'spotify'], d.source)))[1],
         min(d.created_at)
    from user_podcasts d join unnest(p_dup, p_keep) as m(dup, keep) on m.dup = d.podcast_id
   group by d.user_id, m.keep
  on conflict (user_id, podcast_id) do update set
    episode_count = greatest(up.episode_count, excluded.episode_count),
    last_episode = case when up.last_listened is null or excluded.last_listened > up.last_listened
                        then coalesce(excluded.last_episode, up.last_episode)
                        else coalesce(up.last_episode, excluded.last_episode) end,
    last_listened = greatest(up.last_listened, excluded.last_listened),
    hidden = up.hidden and excluded.hidden,
    times_listened = greatest(up.times_listened, excluded.times_listened),
    source = case when 'manual' in (up.source, excluded.source) then 'manual'
                  when 'opml' in (up.source, excluded.source) then 'opml' else up.source end,
    created_at = least(up.created_at, excluded.created_at);

  -- Episodes the kept row lacks move over (one per guid); the rest go with their duplicate.
  update podcast_episodes e set podcast_id = m.keep
    from unnest(p_dup, p_keep) as m(dup, keep)
   where e.podcast_id = m.dup
     and not exists (select 1 from podcast_episodes k where k.podcast_id = m.keep and k.guid = e.guid)
     and e.id = (select min(o.id) from podcast_episodes o
                   join unnest(p_dup, p_keep) as mo(dup, keep) on mo.dup = o.podcast_id
                  where mo.keep = m.keep and o.guid = e.guid);

  -- Remaining entries and episodes of the duplicates go with them (on delete cascade).
  delete from podcasts where id = any(p_dup);
  return affected;
end
$fn$;`);

    this.addSql(
      `alter table "podcasts" add column if not exists "feed_url_key" text generated always as (podcast_feed_key(feed_url)) stored;`,
    );
    this.addSql(
      `alter table "podcasts" add column if not exists "name_key" text generated always as (podcast_title_key(name)) stored;`,
    );

    // Same feed: the unique index below needs these gone.
    this.addSql(`select podcasts_merge(array_agg(id), array_agg(keep)) from (
  select id, first_value(id) over (partition by feed_url_key order by ${CATALOG_INFO} desc, id) as keep
    from podcasts where feed_url_key is not null) g
 where id <> keep;`);

    // Same title: one show when at most one author is named among its rows. A title several authors
    // use is several shows: rows merge per author, and rows without an author stay (which one?).
    // Two different Spotify ids are two Spotify shows: those never merge.
    this.addSql(`with t as (
  select id, name_key, spotify_id, podcast_title_key(creator) as author, ${CATALOG_INFO} as info
    from podcasts where name_key is not null
), titles as (
  select name_key, count(distinct author) as authors from t group by name_key having count(*) > 1
), grouped as (
  select t.*, case when titles.authors <= 1 then '' else t.author end as grp from t join titles using (name_key)
), ranked as (
  select id, spotify_id, first_value(id) over w as keep, first_value(spotify_id) over w as keep_spotify_id
    from grouped where grp is not null
  window w as (partition by name_key, grp order by info desc, id)
)
select podcasts_merge(array_agg(id), array_agg(keep)) from ranked
 where id <> keep and (spotify_id is null or keep_spotify_id is null);`);

    this.addSql(`create unique index if not exists "podcasts_feed_url_key_unique" on "podcasts" ("feed_url_key");`);
    this.addSql(`create index if not exists "podcasts_name_key_index" on "podcasts" ("name_key");`);
    this.addSql(
      `create index if not exists "podcasts_name_key_trgm_index" on "podcasts" using gin ("name_key" gin_trgm_ops);`,
    );
    this.addSql(
      `create index if not exists "podcasts_creator_key_trgm_index" on "podcasts" using gin (podcast_title_key("creator") gin_trgm_ops);`,
    );
    this.addSql(`drop index if exists "podcasts_name_trgm_index";`);
  }

  /** Drops the keys and functions; merged rows stay merged (the duplicates' ids are gone for good). */
  override async down(): Promise<void> {
    this.addSql(
      `create index if not exists "podcasts_name_trgm_index" on "podcasts" using gin (lower("name") gin_trgm_ops);`,
    );
    this.addSql(`drop index if exists "podcasts_creator_key_trgm_index";`);
    this.addSql(`alter table "podcasts" drop column if exists "feed_url_key", drop column if exists "name_key";`);
    this.addSql('drop function if exists podcasts_merge(int[], int[]);');
    this.addSql('drop function if exists podcast_title_key(text);');
    this.addSql('drop function if exists podcast_feed_key(text);');
  }
}
