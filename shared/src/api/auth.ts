import { DevLoginBodySchema, LoginResponseSchema, OkResponseSchema, SignInMethodsSchema } from '../schemas/auth';
import { SpotifyExchangeBodySchema } from '../schemas/spotify';
import { defineEndpoint } from './endpoint';

export const authApi = {
  /** The sign-in methods this server offers: Spotify only with its credentials, dev login only in development. */
  signInMethods: defineEndpoint({
    method: 'GET',
    path: '/api/auth/methods',
    access: 'public',
    response: SignInMethodsSchema,
  }),
  /** Development login (any username, no password); 404 unless the server runs in development mode. */
  devLogin: defineEndpoint({
    method: 'POST',
    path: '/api/auth/dev-login',
    access: 'public',
    rateLimit: { name: 'signIn', per: 'accountName' },
    body: DevLoginBodySchema,
    response: LoginResponseSchema,
  }),
  /** Ends the caller's login (every token rotated from it). */
  logout: defineEndpoint({ method: 'POST', path: '/api/auth/logout', access: 'user', response: OkResponseSchema }),
  /** Ends every login of the caller, on every device (each open socket is told and disconnected). */
  logoutEverywhere: defineEndpoint({
    method: 'POST',
    path: '/api/auth/logout-everywhere',
    access: 'user',
    response: OkResponseSchema,
  }),
  /** Trades the one-time code of `/login?spotify_code=` (after signing in through Spotify) for a session. */
  spotifyExchange: defineEndpoint({
    method: 'POST',
    path: '/api/auth/spotify/exchange',
    access: 'public',
    rateLimit: { name: 'codeExchange' },
    body: SpotifyExchangeBodySchema,
    response: LoginResponseSchema,
  }),
} as const;
