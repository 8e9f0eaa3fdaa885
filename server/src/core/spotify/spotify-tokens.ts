import type { EntityManager } from '@mikro-orm/postgresql';
import { decryptSecret, encryptSecret, SecretDecryptError, secretOwner } from '../crypto/secret-box';
import { identityOf, type User, type UserIdentity } from '../db/entities';
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

// A person's Spotify tokens live encrypted on their Spotify identity (user_identities, provider
// 'spotify': access_token, refresh_token, expires_at). Nothing outside this module sees them in
// clear, and no presenter ever lists them.

/** The person's linked Spotify account, if any (it stays linked for sign-in after a disconnect). */
export const spotifyIdentityOf = (user: User): UserIdentity | undefined => identityOf(user, 'spotify');

export function storeTokens(identity: UserIdentity, tokens: SpotifyTokens, key: Buffer): void {
  const owner = spotifyOwner(identity.user.id);
  identity.accessToken = encryptSecret(tokens.accessToken, key, owner);
  identity.refreshToken = encryptSecret(tokens.refreshToken, key, owner);
  identity.expiresAt = tokens.expiresAt;
}

export function clearTokens(identity: UserIdentity): void {
  identity.accessToken = null;
  identity.refreshToken = null;
  identity.expiresAt = null;
}

export function hasTokens(user: User): boolean {
  return Boolean(spotifyIdentityOf(user)?.refreshToken);
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
  const notConnected = () => new SpotifyReconnectError('Spotify is not connected. Connect Spotify first.');
  // Tokens that no longer decrypt (the key changed) are as good as revoked: ask for a reconnect.
  const decrypt = async (identity: UserIdentity, value: string): Promise<string> => {
    try {
      return decryptSecret(value, config.tokenKey, spotifyOwner(user.id));
    } catch (error) {
      if (!(error instanceof SecretDecryptError)) throw error;
      clearTokens(identity);
      await em.flush();
      throw new SpotifyReconnectError('The stored Spotify access could not be read. Reconnect Spotify.');
    }
  };
  const refresh = async (): Promise<string> => {
    const identity = spotifyIdentityOf(user);
    if (!identity?.refreshToken) throw notConnected();
    let tokens: SpotifyTokens;
    try {
      tokens = await refreshTokens(config, await decrypt(identity, identity.refreshToken), options);
    } catch (error) {
      if (error instanceof SpotifyReconnectError) {
        clearTokens(identity);
        await em.flush();
      }
      throw error;
    }
    storeTokens(identity, tokens, config.tokenKey);
    await em.flush();
    return tokens.accessToken;
  };
  return {
    async accessToken() {
      const identity = spotifyIdentityOf(user);
      if (!identity?.accessToken || !identity.refreshToken) throw notConnected();
      const expiry = identity.expiresAt?.getTime() ?? 0;
      if (expiry - EARLY_REFRESH_MS <= Date.now()) return refresh();
      return decrypt(identity, identity.accessToken);
    },
    refresh,
  };
}
