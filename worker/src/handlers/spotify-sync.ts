import type { EntityManager } from '@mikro-orm/postgresql';
import {
  PODCAST_MERGE_LOCK,
  PodcastEpisodeSchema,
  PodcastSchema,
  storableText,
  UserPodcastSchema,
  UserSchema,
} from '@server/core/db/entities';
import { sql } from '@server/core/db/sql';
import { toSelfUser } from '@server/core/presenters/user.presenter';
import {
  type SavedEpisode,
  SavedEpisodeSchema,
  type SavedShow,
  SavedShowSchema,
  SpotifyApi,
  SpotifyApiError,
  type SpotifyHttpOptions,
  SpotifyReconnectError,
  type SpotifyShow,
} from '@server/core/spotify/spotify-client';
import { loadSpotifyConfig, type SpotifyConfig } from '@server/core/spotify/spotify-config';
import { hasTokens, spotifyIdentityOf, userTokenSource } from '@server/core/spotify/spotify-tokens';
import { JobError, type JobPayload, type JobResult } from '@shared/index';
import { UnrecoverableError } from 'bullmq';
import type { JobContext } from './handler';

type SpotifyPayload = Extract<JobPayload<'podcastsSync'>, { source: 'spotify' }>;
type Result = JobResult<'podcastsSync'>;

/** Spotify's largest page size for /me/shows and /me/episodes. */
const PAGE_SIZE = 50;

/** What the library keeps of one show: the show, when it was saved, and its saved episodes. */
interface ShowListening {
  show: SpotifyShow;
  savedAt: Date | null;
  episodes: SavedEpisode[];
}

const parseDate = (value: string | null | undefined): Date | null => {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
};

/** release_date is "2024", "2024-05" or "2024-05-17" depending on its precision. */
function releaseDate(value: string | null | undefined): Date | null {
  if (!value) return null;
  const full = /^\d{4}$/.test(value) ? `${value}-01-01` : /^\d{4}-\d{2}$/.test(value) ? `${value}-01` : value;
  return parseDate(`${full.slice(0, 10)}T00:00:00Z`);
}

/** Started or finished, per the episode's resume point. */
const listened = (e: SavedEpisode) =>
  Boolean(e.episode.resume_point?.fully_played) || (e.episode.resume_point?.resume_position_ms ?? 0) > 0;

const newestFirst = (a: SavedEpisode, b: SavedEpisode) =>
  (parseDate(b.added_at)?.getTime() ?? 0) - (parseDate(a.added_at)?.getTime() ?? 0);

/**
 * The listening figures of one show (docs/spotify.md):
 * - episodeCount: the show's total_episodes, else the number of its saved episodes;
 * - timesListened: its saved episodes that were started or finished (resume point);
 * - lastEpisode / lastListened: the most recently saved of those (of all its saved episodes if
 *   none was played); lastListened falls back to when the show was saved.
 */
export function listeningFigures(entry: ShowListening) {
  const played = entry.episodes.filter(listened).sort(newestFirst);
  const latest = played[0] ?? [...entry.episodes].sort(newestFirst)[0];
  return {
    episodeCount: entry.show.total_episodes ?? entry.episodes.length,
    timesListened: played.length,
    lastEpisode: latest?.episode.name ?? null,
    lastListened: parseDate(latest?.added_at) ?? entry.savedAt,
  };
}

/** Reads the user's saved shows and episodes from Spotify into their library. */
export async function syncSpotifyLibrary(payload: SpotifyPayload, ctx: JobContext): Promise<Result> {
  return runSpotifySync(payload, ctx, workerSpotifyConfig());
}

let cachedConfig: SpotifyConfig | undefined;
/** The worker's Spotify settings, from the same environment variables as the server's. */
export function workerSpotifyConfig(env: NodeJS.ProcessEnv = process.env): SpotifyConfig {
  cachedConfig ??= loadSpotifyConfig(env, {
    isProduction: (env.NODE_ENV ?? 'production') === 'production',
    port: Number(env.PORT ?? 5000) || 5000,
  });
  return cachedConfig;
}

const FINAL = { final: true } as const;

export async function runSpotifySync(
  payload: SpotifyPayload,
  ctx: JobContext,
  config: SpotifyConfig,
  http: SpotifyHttpOptions = {},
): Promise<Result> {
  const user = await ctx.em.findOne(UserSchema, payload.userId);
  // Retrying cannot fix these: fail at once (final), with a code the client turns into its text.
  if (!user) throw new UnrecoverableError(`User ${payload.userId} no longer exists`);
  if (!config.configured) throw new JobError('spotify_unavailable', 'Spotify is not configured on this server.', FINAL);
  if (!hasTokens(user)) throw new JobError('spotify_reconnect', undefined, FINAL);

  const api = new SpotifyApi(config, userTokenSource(ctx.em, user, config, http), http);
  const shows: SavedShow[] = [];
  const episodes: SavedEpisode[] = [];
  let skipped = 0;
  try {
    await ctx.progress(5);
    for await (const page of api.pages(`/me/shows?limit=${PAGE_SIZE}&offset=0`, SavedShowSchema)) {
      shows.push(...page.items);
      skipped += page.skipped;
      await ctx.progress(
        5 + Math.round((35 * Math.min(page.offset + PAGE_SIZE, page.total)) / Math.max(page.total, 1)),
      );
    }
    for await (const page of api.pages(`/me/episodes?limit=${PAGE_SIZE}&offset=0`, SavedEpisodeSchema)) {
      episodes.push(...page.items);
      skipped += page.skipped;
      await ctx.progress(
        40 + Math.round((35 * Math.min(page.offset + PAGE_SIZE, page.total)) / Math.max(page.total, 1)),
      );
    }
  } catch (error) {
    if (error instanceof SpotifyReconnectError) {
      // The token source has already cleared the dead tokens (committed, whatever this job's outcome):
      // show the account as disconnected now, not with effects that a failed job never publishes.
      ctx.publisher.emit('user:updated', toSelfUser(user), { userId: user.id });
      throw new JobError('spotify_reconnect', undefined, { ...FINAL, cause: error });
    }
    // Network trouble, 5xx, rate limits: worth the retries with backoff.
    if (error instanceof SpotifyApiError) throw new JobError('spotify_unavailable', error.message, { cause: error });
    throw error;
  }

  const library = new Map<string, ShowListening>();
  for (const saved of shows) {
    library.set(saved.show.id, { show: saved.show, savedAt: parseDate(saved.added_at), episodes: [] });
  }
  for (const saved of episodes) {
    const show = saved.episode.show;
    const entry = library.get(show.id) ?? { show, savedAt: null, episodes: [] };
    entry.episodes.push(saved);
    library.set(show.id, entry);
  }

  await ctx.em.transactional((tx) => writeLibrary(tx, user.id, library));
  await ctx.progress(95);

  const identity = spotifyIdentityOf(user);
  if (identity) identity.syncedAt = new Date();
  await ctx.em.flush();
  ctx.effects.userUpdated(user);
  return { podcasts: library.size, failed: skipped };
}

const nameOf = (show: SpotifyShow) => storableText(show.name, 300);
const publisherOf = (show: SpotifyShow) => (show.publisher ? storableText(show.publisher, 200) || null : null);

/**
 * The catalog row of each show, by Spotify show id (docs/podcasts.md, "One show, one row"): the row
 * with that Spotify id, else the one verified row without a Spotify id whose normalised title and
 * author match the show and its publisher (an import's row whose feed was never read holds a title
 * anyone could have typed). Rows found by Spotify id are refreshed from Spotify; a row
 * matched by title is never changed (nor given episodes): anyone can publish a show of any name.
 * Shows matching neither get a row of their own.
 */
async function catalogRows(em: EntityManager, entries: ShowListening[]) {
  const shows = entries.map(({ show }) => ({ id: show.id, name: nameOf(show), publisher: publisherOf(show) }));
  const matched = await sql<{ spotify_id: string; podcast_id: number }>(
    em,
    `select s.id as spotify_id, m.id as podcast_id
       from jsonb_to_recordset(?::jsonb) as s(id text, name text, publisher text)
       cross join lateral (
         select min(p.id) as id from podcasts p
          where p.name_key = podcast_title_key(s.name) and p.spotify_id is null and p.verified_at is not null
            and (s.publisher is null or podcast_title_key(p.creator) = podcast_title_key(s.publisher))
         having count(*) = 1) m
      where not exists (select 1 from podcasts p where p.spotify_id = s.id)`,
    [JSON.stringify(shows)],
  );
  const byTitle = new Map(matched.map((m) => [m.spotify_id, m.podcast_id]));
  // Sorted by Spotify id: concurrent syncs of overlapping libraries lock rows in one order.
  const own = entries.filter(({ show }) => !byTitle.has(show.id)).sort((a, b) => (a.show.id < b.show.id ? -1 : 1));
  const upserted =
    own.length === 0
      ? []
      : await em.upsertMany(
          PodcastSchema,
          own.map(({ show }) => ({
            spotifyId: show.id,
            name: nameOf(show),
            creator: publisherOf(show),
            imageUrl: show.images?.[0]?.url ?? null,
            description: show.description ?? null,
            createdAt: new Date(),
          })),
          {
            onConflictFields: ['spotifyId'],
            onConflictAction: 'merge',
            onConflictMergeFields: ['name', 'creator', 'imageUrl', 'description'],
          },
        );
  return { byTitle, bySpotifyId: new Map(upserted.map((p) => [p.spotifyId as string, p.id])) };
}

/** Podcasts by spotifyId, the user's Spotify entries (mirroring the library), saved episodes. */
async function writeLibrary(em: EntityManager, userId: number, library: Map<string, ShowListening>): Promise<void> {
  // Held until commit: no row this sync resolves to is merged away before its entry is written.
  await sql(em, 'select pg_advisory_xact_lock_shared(?)', [PODCAST_MERGE_LOCK]);
  const entries = [...library.values()];
  const { byTitle, bySpotifyId } = await catalogRows(em, entries);
  const podcastIdOf = (show: SpotifyShow) => bySpotifyId.get(show.id) ?? byTitle.get(show.id);

  const existing = await em.find(UserPodcastSchema, { userId });
  const byPodcast = new Map(existing.map((e) => [e.podcastId, e]));
  const kept = new Set<number>();
  for (const entry of entries) {
    const podcastId = podcastIdOf(entry.show);
    // Two saved shows may be one catalog row: the first one's figures count.
    if (!podcastId || kept.has(podcastId)) continue;
    kept.add(podcastId);
    const figures = listeningFigures(entry);
    const current = byPodcast.get(podcastId);
    // An entry the user added by hand or by OPML keeps its source (and so survives a disconnect).
    if (current) em.assign(current, figures);
    else em.create(UserPodcastSchema, { userId, podcastId, source: 'spotify', hidden: false, ...figures });
  }
  // Shows no longer saved on Spotify leave the library (only entries Spotify put there).
  for (const entry of existing) {
    if (entry.source === 'spotify' && !kept.has(entry.podcastId)) em.remove(entry);
  }

  const episodeRows = entries.flatMap((entry) => {
    const podcastId = bySpotifyId.get(entry.show.id);
    if (!podcastId) return [];
    return entry.episodes.map(({ episode }) => ({
      podcastId,
      guid: `spotify:${episode.id}`,
      spotifyId: episode.id,
      title: episode.name,
      description: episode.description ?? null,
      publishedAt: releaseDate(episode.release_date),
      durationSeconds: episode.duration_ms == null ? null : Math.round(episode.duration_ms / 1000),
    }));
  });
  await em.flush();
  if (episodeRows.length > 0) {
    await em.upsertMany(PodcastEpisodeSchema, episodeRows, {
      onConflictFields: ['podcastId', 'guid'],
      onConflictAction: 'merge',
      onConflictMergeFields: ['title', 'description', 'publishedAt', 'durationSeconds', 'spotifyId'],
    });
  }
}
