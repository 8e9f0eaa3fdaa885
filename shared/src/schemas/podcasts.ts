import { z } from 'zod';
import { ArtworkUrlSchema } from './artwork';
import { PAGE_SIZES, pageQuerySchema, TimestampSchema } from './common';

export const PodcastSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  creator: z.string().nullable(),
  /** The signed image proxy URL of the show's artwork (never the remote address), or null. */
  imageUrl: ArtworkUrlSchema,
  category: z.string().nullable(),
});
export type PodcastSummary = z.infer<typeof PodcastSummarySchema>;

export const PodcastSourceSchema = z.enum(['spotify', 'opml', 'manual']);

/** A library entry (SPEC section 3 user_podcasts) with its podcast. */
export const UserPodcastEntrySchema = z.object({
  id: z.number().int(),
  userId: z.number().int(),
  podcastId: z.number().int(),
  episodeCount: z.number().int().nullable(),
  lastListened: TimestampSchema.nullable(),
  hidden: z.boolean(),
  timesListened: z.number().int(),
  lastEpisode: z.string().nullable(),
  source: PodcastSourceSchema,
  podcast: PodcastSummarySchema,
});
export type UserPodcastEntry = z.infer<typeof UserPodcastEntrySchema>;

export const UserPodcastListSchema = z.array(UserPodcastEntrySchema);

/** A page of a library, most listened first (at most 1,000 entries per request). */
export const LibraryQuerySchema = pageQuerySchema(PAGE_SIZES.library, PAGE_SIZES.library * 2);

export const UpdateUserPodcastBodySchema = z.strictObject({
  hidden: z.boolean({ error: 'hidden must be true or false' }),
});

export const AddUserPodcastBodySchema = z.strictObject({ podcastId: z.number().int().positive() });

export const PodcastSearchQuerySchema = z.object({
  q: z.string().trim().min(1, 'Type something to search for').max(100, 'Search text is too long'),
  limit: z.coerce.number().int().min(1).max(50).default(20),
});

export const PodcastSearchResultSchema = z.array(PodcastSummarySchema);

/**
 * What one person may add (docs/podcasts.md, "Limits"): new shows an import may put into the shared
 * catalog per day, and entries in one library.
 */
export const LIBRARY_LIMITS = { newCatalogShowsPerDay: 500, libraryMaxEntries: 2000 } as const;

export const OpmlImportResultSchema = z.object({
  /** Feeds listed in the file (after removing duplicates and unusable URLs). */
  feeds: z.number().int(),
  /** Entries newly added to the library. */
  added: z.number().int(),
  /** Feeds that were already in the library. */
  alreadyInLibrary: z.number().int(),
  /** Outlines whose URL could not be used (not http/https, another port than 80/443, malformed). */
  skipped: z.number().int(),
  /** Feeds left out because a limit was reached (LIBRARY_LIMITS), and which limit, in a sentence. */
  notAdded: z.number().int(),
  limitNote: z.string().nullable(),
  /** The job that reads the feeds; its progress arrives as job:status events. */
  jobIds: z.array(z.string()),
});
export type OpmlImportResult = z.infer<typeof OpmlImportResultSchema>;
