import type { EntityManager } from '@mikro-orm/postgresql';
import { INTENT_INFO, INTENTS } from '@shared/index';
import { unusablePassword } from '../../passwords';
import { PodcastEpisodeSchema, PodcastSchema, UserPodcastSchema, UserProfileSchema, UserSchema } from '../entities';
import { DEMO_PEOPLE } from './data/demo-people';
import { PODCAST_CATALOG } from './data/podcast-catalog';
import { activeIntents, hashString, LibraryBuilder } from './demo-library';

export { DEMO_PEOPLE } from './data/demo-people';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Serialises concurrent seeders (two launchers against one database) on one advisory lock. */
const SEED_LOCK_KEY = 7_346_201;

export interface SeedOptions {
  /** The moment listening dates are relative to; tests pass a fixed one. */
  now?: Date;
}

/** Inserts the demo podcast catalog; returns the ids of its shows by name. */
export async function seedCatalog(em: EntityManager, now: Date): Promise<Map<string, number>> {
  await em.insertMany(
    PodcastSchema,
    PODCAST_CATALOG.map((show) => ({
      name: show.name,
      creator: show.creator,
      category: show.category,
      categories: [...show.categories],
      feedUrl: show.feedUrl,
      spotifyId: null,
      imageUrl: null,
      title: null,
      description: null,
      lastFetchedAt: null,
      fetchError: null,
      createdAt: now,
      // The demo catalog is ours: everyone sees it from the start (docs/podcasts.md).
      verifiedAt: now,
      addedBy: null,
      fetchQueuedAt: null,
    })),
  );
  const names = PODCAST_CATALOG.map((show) => show.name);
  const rows = await em.find(PodcastSchema, { name: { $in: names } }, { fields: ['id', 'name'] });
  return new Map(rows.map((row) => [row.name, row.id]));
}

/**
 * Seeds the podcast catalog and the demo people with their profiles and libraries into an empty
 * database (no users and no podcasts), in one transaction with bulk inserts. Returns the ids of the
 * people it created (none if the database was not empty), so the caller can queue their avatars.
 */
export async function seedDemoData(em: EntityManager, options: SeedOptions = {}): Promise<number[]> {
  const now = options.now ?? new Date();
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?)', [SEED_LOCK_KEY]);
    if ((await tx.count(UserSchema, {})) > 0 || (await tx.count(PodcastSchema, {})) > 0) return [];

    const podcastIds = await seedCatalog(tx, now);

    // The people.
    await tx.insertMany(
      UserSchema,
      DEMO_PEOPLE.map((person) => {
        const joined = new Date(now.getTime() - (30 + (hashString(person.username) % 300)) * DAY_MS);
        return {
          username: person.username,
          password: unusablePassword(),
          displayName: person.displayName,
          intent: person.intent,
          romanticTagline: person.romanticTagline,
          platonicTagline: person.platonicTagline,
          professionalTagline: person.professionalTagline,
          matchPreferences: { minMatchPercentage: 0 },
          isDemo: true,
          signUpMethod: 'demo' as const,
          createdAt: joined,
          updatedAt: joined,
        };
      }),
    );
    const userIds = new Map<string, number>();
    for (const row of await tx.find(UserSchema, {}, { fields: ['id', 'username'] })) userIds.set(row.username, row.id);
    const idOf = (username: string) => userIds.get(username)!;

    await tx.insertMany(
      UserProfileSchema,
      DEMO_PEOPLE.flatMap((person, position) => {
        const active = activeIntents(person.intent, position);
        return INTENTS.map((intent) => ({
          userId: idOf(person.username),
          intent,
          displayName: person.displayName,
          tagline: person[INTENT_INFO[intent].taglineField],
          videoIntroUrl: null,
          profilePicture: null,
          active: active.has(intent),
        }));
      }),
    );

    // Libraries, and the recent episodes of every show in one.
    const builder = new LibraryBuilder(PODCAST_CATALOG, now);
    const libraryRows = DEMO_PEOPLE.flatMap((person, position) =>
      builder.build(person, position).map((entry) => ({
        userId: idOf(person.username),
        podcastId: podcastIds.get(entry.show.name)!,
        episodeCount: entry.episodeCount,
        lastListened: entry.lastListened,
        hidden: entry.hidden,
        timesListened: entry.timesListened,
        lastEpisode: entry.lastEpisode,
        source: 'manual' as const,
        createdAt: entry.addedAt,
      })),
    );
    await tx.insertMany(UserPodcastSchema, libraryRows);

    const listenedShows = PODCAST_CATALOG.filter((show) => builder.hasEpisodes(show));
    await tx.insertMany(
      PodcastEpisodeSchema,
      listenedShows.flatMap((show) =>
        builder.episodesOf(show).map((episode) => ({
          podcastId: podcastIds.get(show.name)!,
          guid: episode.guid,
          title: episode.title,
          description: episode.description,
          episodeNumber: episode.episodeNumber,
          publishedAt: episode.publishedAt,
          durationSeconds: episode.durationSeconds,
          spotifyId: null,
        })),
      ),
    );

    return DEMO_PEOPLE.map((person) => idOf(person.username));
  });
}
