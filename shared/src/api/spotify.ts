import { OkResponseSchema } from '../schemas/auth';
import { JobAcceptedSchema } from '../schemas/jobs';
import { SpotifyConnectFinishBodySchema, SpotifyConnectTicketSchema, SpotifyStatusSchema } from '../schemas/spotify';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

export const spotifyApi = {
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
