import { z } from 'zod';
import type { INTENTS } from '../constants';
import { ArtworkUrlSchema } from './artwork';
import { IntentSchema } from './common';
import { PublicUserSchema } from './user';

/** Profiles per feed answer, best match first. */
export const FEED_PAGE_SIZE = 30;

export const FeedQuerySchema = z.object({
  /** Defaults to the user's current intent. */
  intent: IntentSchema.optional(),
});

export const FeedSharedPodcastSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  creator: z.string().nullable(),
  /** The signed image proxy URL of the show's artwork (never the remote address), or null. */
  imageUrl: ArtworkUrlSchema,
});
export type FeedSharedPodcast = z.infer<typeof FeedSharedPodcastSchema>;

/** The person's presentation for the feed's intent (SPEC section 3, "Feed item"). */
export const FeedProfileSchema = z.object({
  displayName: z.string().nullable(),
  tagline: z.string().nullable(),
  profilePicture: z.string().nullable(),
  videoIntroUrl: z.string().nullable(),
  /** The first frame of that video, shown while it loads. */
  videoPosterUrl: z.string().nullable(),
});

/** Public user fields plus the match % with the viewer, their profile for the intent, and why. */
export const FeedItemSchema = PublicUserSchema.extend({
  matchPercentage: z.number().int().min(0).max(100),
  profile: FeedProfileSchema.nullable(),
  /** Visible shows both people list, the ones that drive the match first. */
  sharedPodcasts: z.array(FeedSharedPodcastSchema),
});
export type FeedItem = z.infer<typeof FeedItemSchema>;

export const FeedResponseSchema = z.array(FeedItemSchema);

/** Pending feed profiles per intent. */
export const FeedCountsSchema = z.object({
  romantic: z.number().int().min(0),
  platonic: z.number().int().min(0),
  professional: z.number().int().min(0),
}) satisfies z.ZodType<Record<(typeof INTENTS)[number], number>>;
export type FeedCounts = z.infer<typeof FeedCountsSchema>;
