import { api } from '@shared/api';
import { apiRequest, endpointQuery } from '@/lib/api-client';
import { readStoredToken } from '@/lib/session';

// The typed auth calls. The login screen imports this file dynamically, on first use, so the
// shared endpoint table (and zod) is not part of the first load of /login.

/** POST /api/auth/dev-login; the answer must hold token and user (LoginResponseSchema). */
export async function requestDevLogin(username: string) {
  const { token, user } = await apiRequest(api.devLogin, { body: { username } });
  return { token, user, userQueryKey: endpointQuery(api.getUser, { params: { userId: user.id } }).queryKey };
}

/** POST /api/auth/spotify/exchange: the one-time code of /login?spotify_code= -> token and user. */
export async function requestSpotifyExchange(code: string) {
  const { token, user } = await apiRequest(api.spotifyExchange, { body: { code } });
  return { token, user, userQueryKey: endpointQuery(api.getUser, { params: { userId: user.id } }).queryKey };
}

/** GET /api/auth/methods: what this server offers (Spotify only with its credentials). */
export function requestSignInMethods() {
  return apiRequest(api.signInMethods, {});
}

/** POST /api/auth/logout, best effort. Never throws: logging out must always work locally. */
export async function revokeServerSession(): Promise<void> {
  if (!readStoredToken()) return;
  try {
    await apiRequest(api.logout, {});
  } catch {
    // Offline or already expired: the local session ends anyway.
  }
}
