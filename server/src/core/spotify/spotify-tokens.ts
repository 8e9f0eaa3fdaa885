import type { EntityManager } from '@mikro-orm/postgresql';
import { decryptSecret, encryptSecret, SecretDecryptError, secretOwner } from '../crypto/secret-box';
import type { User } from '../db/entities';
import {
  refreshTokens,
  type SpotifyHttpOptions,
  SpotifyReconnectError,
  type SpotifyTokens,
  type TokenSource,
} from './spotify-client';
import type { SpotifyConfig } from './spotify-config';

/** The associated data of a person's Spotify tokens (core/crypto): bound to that person. */
export const spotifyOwner = (userId: number): Buffer => secretOwner(`user:${userId}`);

// A user's Spotify tokens live encrypted in users.spotify_access_token / spotify_refresh_token.
// Nothing outside this module sees them in clear, and no presenter ever lists them.

export function storeTokens(user: User, tokens: SpotifyTokens, key: Buffer): void {
  user.spotifyAccessToken = encryptSecret(tokens.accessToken, key, spotifyOwner(user.id));
  user.spotifyRefreshToken = encryptSecret(tokens.refreshToken, key, spotifyOwner(user.id));
  user.spotifyTokenExpiry = tokens.expiresAt;
}

export function clearTokens(user: User): void {
  user.spotifyAccessToken = null;
  user.spotifyRefreshToken = null;
  user.spotifyTokenExpiry = null;
}

export function hasTokens(user: User): boolean {
  return Boolean(user.spotifyRefreshToken);
}

/** Renew this long before the stored expiry, so a call does not start with a dying token. */
const EARLY_REFRESH_MS = 60_000;

/**
 * Tokens of one user for SpotifyApi: decrypts on use, refreshes when expired or after a 401 and
 * saves the new pair; a dead refresh token (invalid_grant) clears the tokens and throws
 * SpotifyReconnectError, so the user is shown as disconnected.
 */
export function userTokenSource(
  em: EntityManager,
  user: User,
  config: Pick<SpotifyConfig, 'accountsUrl' | 'clientId' | 'clientSecret' | 'tokenKey'>,
  options: SpotifyHttpOptions = {},
): TokenSource {
  // Tokens that no longer decrypt (the key changed) are as good as revoked: ask for a reconnect.
  const decrypt = async (value: string): Promise<string> => {
    try {
      return decryptSecret(value, config.tokenKey, spotifyOwner(user.id));
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      clearTokens(user);
      await em.flush();
      throw new SpotifyReconnectError('The stored Spotify access could not be read. Reconnect Spotify.');
    }
  };
  const refresh = async (): Promise<string> => {
    if (!user.spotifyRefreshToken) throw new SpotifyReconnectError('Spotify is not connected. Connect Spotify first.');
    let tokens: SpotifyTokens;
    try {
      tokens = await refreshTokens(config, await decrypt(user.spotifyRefreshToken), options);
    } catch (error) {
      if (error instanceof SpotifyReconnectError) {
        clearTokens(user);
        await em.flush();
      }
      throw error;
    }
    storeTokens(user, tokens, config.tokenKey);
    await em.flush();
    return tokens.accessToken;
  };
  return {
    async accessToken() {
      if (!user.spotifyAccessToken || !user.spotifyRefreshToken) {
        throw new SpotifyReconnectError('Spotify is not connected. Connect Spotify first.');
      }
      const expiry = user.spotifyTokenExpiry?.getTime() ?? 0;
      if (expiry - EARLY_REFRESH_MS <= Date.now()) return refresh();
      return decrypt(user.spotifyAccessToken);
    },
    refresh,
  };
}
