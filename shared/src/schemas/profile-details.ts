import { z } from 'zod';
import { TimestampSchema } from './common';
import { FeedSharedPodcastSchema } from './feed';
import { PublicUserSchema } from './user';

/** How many of each list a profile shows (SPEC section 9: 5 categories, 5 podcasts, 5 listens). */
export const PROFILE_DETAILS_LIMIT = 5;

export const CategoryCountSchema = z.object({ name: z.string(), count: z.number().int().min(1) });

export const ListenedPodcastSchema = FeedSharedPodcastSchema.extend({
  timesListened: z.number().int().min(0),
});

export const RecentListenSchema = z.object({
  podcast: FeedSharedPodcastSchema,
  listenedAt: TimestampSchema,
  episodeTitle: z.string().nullable(),
  episodeNumber: z.number().int().nullable(),
  description: z.string().nullable(),
});
export type RecentListen = z.infer<typeof RecentListenSchema>;

/**
 * Another person's profile as the viewer may see it in one intent (or the caller's own): `user` is
 * their presentation for that intent, podcasts are visible ones only. `match` is the mutual match in that intent, if any; `common` lists the shows both
 * list visibly, at most `shownCount` of them (SPEC section 9), out of `count`.
 */
export const ProfileDetailsSchema = z.object({
  user: PublicUserSchema,
  matchPercentage: z.number().int().min(0).max(100),
  match: z.object({ id: z.number().int() }).nullable(),
  topCategories: z.array(CategoryCountSchema),
  topPodcasts: z.array(ListenedPodcastSchema),
  recentListens: z.array(RecentListenSchema),
  common: z.object({ podcasts: z.array(FeedSharedPodcastSchema), count: z.number().int().min(0) }),
  /**
   * The person's linked Bluesky handle (its DID document claims it, checked both ways when linked):
   * shown to the person and to their live mutual matches only, else null.
   */
  bluesky: z.object({ handle: z.string(), did: z.string() }).nullable(),
});
export type ProfileDetails = z.infer<typeof ProfileDetailsSchema>;

/** SPEC section 9: common podcasts shown = min(own count, max(3, ceil(match / 10))). */
export function commonPodcastsShown(count: number, matchPercentage: number): number {
  return Math.min(count, Math.max(3, Math.ceil(matchPercentage / 10)));
}
