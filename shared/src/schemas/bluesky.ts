import { z } from 'zod';

/** A Bluesky handle as people type it ("@ada.bsky.social" or "ada.bsky.social"): a domain name. */
export const BlueskyHandleSchema = z
  .string({ error: 'handle is required' })
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/^@/, ''))
  .pipe(
    z
      .string()
      .min(1, 'Enter your Bluesky handle, e.g. ada.bsky.social')
      .max(253, 'That handle is too long')
      .regex(
        /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/,
        'A handle looks like ada.bsky.social',
      ),
  );

/** The owner's view of their Bluesky link. Never a token. */
export const BlueskyStatusSchema = z.object({
  /** False when this server cannot link Bluesky (then `message` says why). */
  available: z.boolean(),
  message: z.string().nullable(),
  linked: z.boolean(),
  handle: z.string().nullable(),
  did: z.string().nullable(),
});
export type BlueskyStatus = z.infer<typeof BlueskyStatusSchema>;

/** The screen a link is started on, and which the callback returns to (`/<page>?bluesky_link=`). */
/** Where the callback sends the browser: the page a link started on, or the login screen for a sign-in. */
export const BlueskyReturnPageSchema = z.enum(['profile', 'setup', 'login']);
export type BlueskyReturnPage = z.infer<typeof BlueskyReturnPageSchema>;

export const BlueskyLinkBodySchema = z.strictObject({
  handle: BlueskyHandleSchema,
  /** Default: profile. */
  returnPage: BlueskyReturnPageSchema.optional(),
});
export type BlueskyLinkBody = z.infer<typeof BlueskyLinkBodySchema>;

/** Where the browser goes next: the person's own Bluesky server, to approve the link. */
export const BlueskyLinkStartSchema = z.object({ url: z.string() });

/** The one-time code `/profile?bluesky_link=` carries back; the account that started the link claims it. */
export const BlueskyFinishBodySchema = z.strictObject({
  code: z.string({ error: 'code is required' }).trim().min(1, 'code is required').max(200, 'code is too long'),
});

/** The public profile page of an identity, by DID: it stays right when a handle changes hands. */
export const blueskyProfileUrl = (did: string) => `https://bsky.app/profile/${encodeURIComponent(did)}`;

export const BLUESKY_TEXTS = {
  expired: 'This Bluesky link has expired or was already used. Please link again.',
  otherAccount: 'This Bluesky link was started from another PodMatch account. Nothing was linked.',
  inUse: 'This Bluesky account is linked to another PodMatch profile.',
  unresolved: "We couldn't find that handle on Bluesky. Check the spelling and try again.",
  notClaimed: "That handle's identity does not confirm it, so it cannot be shown as verified.",
  failed: 'Bluesky did not complete the link. Please try again.',
  ended: 'Your Bluesky link ended (access was revoked or expired). Link it again to show your handle.',
  linked: 'Bluesky linked',
  otherBrowser: 'This Bluesky link was approved in another browser than the one that started it. Nothing was linked.',
  signInExpired: 'This Bluesky sign-in has expired or was already used. Please sign in again.',
  signInFailed: 'Bluesky did not complete the sign-in. Please try again.',
  handleLost:
    "Your Bluesky identity no longer confirms its handle, so matches don't see a badge. Check your handle on Bluesky.",
} as const;
