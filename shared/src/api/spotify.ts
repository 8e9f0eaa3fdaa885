import { z } from 'zod';
import { OkResponseSchema } from '../schemas/auth';
import { JobAcceptedSchema } from '../schemas/jobs';
import { SpotifyConnectFinishBodySchema, SpotifyConnectTicketSchema, SpotifyStatusSchema } from '../schemas/spotify';
import { defineEndpoint, RedirectSchema } from './endpoint';
import { UserIdParams } from './params';

/** Where Spotify sends the browser back after its consent page (the app's registered redirect URI). */
export const SPOTIFY_CALLBACK_PATH = '/api/spotify/callback';

/** What Spotify's callback carries (RFC 6749 section 4.1.2); anything else is ignored. */
const SpotifyCallbackQuerySchema = z.object({
  state: z.string().max(200).optional(),
  code: z.string().max(2000).optional(),
  error: z.string().max(200).optional(),
});

export const spotifyApi = {
  /** "Continue with Spotify" on the login screen: to Spotify's consent page (sign in, or sign up). */
  spotifySignIn: defineEndpoint({
    method: 'GET',
    path: '/api/auth/spotify',
    access: 'public',
    kind: 'redirect',
    rateLimit: { name: 'signIn' },
    response: RedirectSchema,
  }),
  /**
   * A navigation has no bearer token: with the one-time ticket of POST /api/spotify/connect-ticket,
   * to Spotify to connect it to that account; without one, the same as spotifySignIn.
   */
  spotifyConnectStart: defineEndpoint({
    method: 'GET',
    path: '/api/spotify/login',
    access: 'public',
    kind: 'redirect',
    rateLimit: { name: 'signIn' },
    query: z.object({ ticket: z.string().max(200).optional() }),
    response: RedirectSchema,
  }),
  /** Spotify sends the browser back here: signed in (a one-time code), or a connect to claim. */
  spotifyCallback: defineEndpoint({
    method: 'GET',
    path: SPOTIFY_CALLBACK_PATH,
    access: 'public',
    kind: 'redirect',
    rateLimit: { name: 'codeExchange' },
    query: SpotifyCallbackQuerySchema,
    response: RedirectSchema,
  }),
  spotifyStatus: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/spotify',
    access: 'owner',
    params: UserIdParams,
    response: SpotifyStatusSchema,
  }),
  spotifySync: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/spotify/sync',
    access: 'owner',
    rateLimit: { name: 'spotifySyncs' },
    params: UserIdParams,
    response: JobAcceptedSchema,
    status: 202,
  }),
  spotifyDisconnect: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/spotify',
    access: 'owner',
    rateLimit: { name: 'libraryEdits' },
    params: UserIdParams,
    response: OkResponseSchema,
  }),
  /** A one-time URL to navigate to (GET /api/spotify/login?ticket=...) to connect the signed-in user. */
  spotifyConnectTicket: defineEndpoint({
    method: 'POST',
    path: '/api/spotify/connect-ticket',
    access: 'user',
    response: SpotifyConnectTicketSchema,
  }),
  /**
   * Claims a connect that came back from Spotify (`/profile?spotify_connect=<code>`): links only when
   * the caller is the account that started it (403 otherwise, nothing linked; the code is spent).
   */
  spotifyConnectFinish: defineEndpoint({
    method: 'POST',
    path: '/api/spotify/connect/finish',
    access: 'user',
    body: SpotifyConnectFinishBodySchema,
    response: SpotifyStatusSchema,
  }),
} as const;
