import { z } from 'zod';
import { TimestampSchema } from './common';

/** The owner's view of their Spotify link. Never any token. */
export const SpotifyStatusSchema = z.object({
  /** False when the server has no Spotify client credentials: connecting cannot work. */
  available: z.boolean(),
  /** Tokens are stored (a refresh can run). */
  connected: z.boolean(),
  spotifyId: z.string().nullable(),
  lastSpotifySync: TimestampSchema.nullable(),
});
export type SpotifyStatus = z.infer<typeof SpotifyStatusSchema>;

/** Where the browser navigates to connect Spotify to the signed-in account (one-time, 5 minutes). */
export const SpotifyConnectTicketSchema = z.object({ url: z.string() });
export type SpotifyConnectTicket = z.infer<typeof SpotifyConnectTicketSchema>;

/** The one-time code that `/login?spotify_code=` carries after signing in through Spotify. */
export const SpotifyExchangeBodySchema = z.strictObject({
  code: z.string({ error: 'code is required' }).trim().min(1, 'code is required').max(200, 'code is too long'),
});
export type SpotifyExchangeBody = z.infer<typeof SpotifyExchangeBodySchema>;

/**
 * The one-time code that `/profile?spotify_connect=` carries after Spotify's consent: the signed-in
 * account that started the connect claims it (POST /api/spotify/connect/finish).
 */
export const SpotifyConnectFinishBodySchema = SpotifyExchangeBodySchema;
export type SpotifyConnectFinishBody = z.infer<typeof SpotifyConnectFinishBodySchema>;

/** The messages of a connect that cannot be finished (also shown by the client). */
export const SPOTIFY_CONNECT_TEXTS = {
  expired: 'This Spotify connection has expired or was already used. Please connect again.',
  otherAccount: 'This Spotify connection was started from another PodMatch account. Nothing was linked.',
  inUse: 'This Spotify account is connected to another PodMatch account.',
} as const;

/** The messages of a Spotify sign-in code that cannot be redeemed. */
export const SPOTIFY_SIGN_IN_TEXTS = {
  expired: 'This Spotify sign-in has expired or was already used. Please sign in again.',
  otherBrowser: 'This Spotify sign-in was started in another browser. Please sign in again here.',
} as const;

/**
 * Values of `?spotify_error=` on /profile after a failed connect; sign-in failures use
 * `/login?error=` with the login error values (SPEC section 8).
 */
export const SPOTIFY_CONNECT_ERRORS: Record<string, { title: string; description: string }> = {
  missing_spotify_credentials: {
    title: 'Spotify is not configured',
    description: 'This server has no Spotify client credentials.',
  },
  spotify_no_code: {
    title: 'Spotify connection cancelled',
    description: 'Spotify did not return an authorization code. Please try again.',
  },
  spotify_auth_failed: {
    title: 'Spotify connection failed',
    description: 'Spotify authorization failed. Please try again.',
  },
  spotify_profile_error: {
    title: 'Could not read your Spotify profile',
    description: 'We could not load your Spotify profile. Please try again.',
  },
  spotify_account_in_use: {
    title: 'Spotify account already linked',
    description: 'This Spotify account is connected to another PodMatch account.',
  },
};
