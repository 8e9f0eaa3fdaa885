import { randomBytes } from 'node:crypto';
/** Where Spotify sends the browser back (registered with Spotify as the redirect URI). */
import { SPOTIFY_CALLBACK_PATH } from '@shared/api/spotify';
import { z } from 'zod';
import { parseEncryptionKey } from '../crypto/secret-box';
import { parseSettings } from '../settings';

export { SPOTIFY_CALLBACK_PATH };

const SpotifyEnvSchema = z.object({
  SPOTIFY_CLIENT_ID: z.string().trim().min(1).optional(),
  SPOTIFY_CLIENT_SECRET: z.string().trim().min(1).optional(),
  SPOTIFY_REDIRECT_URI: z.string().url().optional(),
  SPOTIFY_ACCOUNTS_URL: z.string().url().default('https://accounts.spotify.com'),
  SPOTIFY_API_URL: z.string().url().default('https://api.spotify.com/v1'),
  TOKEN_ENCRYPTION_KEY: z.string().trim().min(1).optional(),
});

export interface SpotifyConfig {
  /** True when a client id is set: without one, both Spotify entry points answer missing_spotify_credentials. */
  configured: boolean;
  clientId: string | null;
  /** Optional with PKCE; sent (HTTP Basic) on token requests when set. */
  clientSecret: string | null;
  redirectUri: string;
  accountsUrl: string;
  apiUrl: string;
  /**
   * 32-byte AES-256-GCM key of secrets at rest (TOKEN_ENCRYPTION_KEY, core/crypto), required whenever
   * Spotify is configured, in every mode: a key anyone can read protects nothing. Without Spotify no
   * Spotify token is ever stored, and this is a random key of this process (config.ts requires it
   * for a Bluesky web client too).
   */
  tokenKey: Buffer;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Reads the Spotify settings; used by the server's and the worker's configuration. */
export function loadSpotifyConfig(
  env: NodeJS.ProcessEnv,
  options: { isProduction: boolean; port: number },
): SpotifyConfig {
  const e = parseSettings(SpotifyEnvSchema, env);
  const configured = Boolean(e.SPOTIFY_CLIENT_ID);
  let tokenKey: Buffer;
  if (e.TOKEN_ENCRYPTION_KEY) {
    tokenKey = parseEncryptionKey(e.TOKEN_ENCRYPTION_KEY);
  } else if (configured) {
    throw new Error(
      'Invalid configuration:\n  TOKEN_ENCRYPTION_KEY: required when SPOTIFY_CLIENT_ID is set (32 bytes, e.g. `openssl rand -base64 32`)',
    );
  } else {
    tokenKey = randomBytes(32);
  }
  return {
    configured,
    clientId: e.SPOTIFY_CLIENT_ID ?? null,
    clientSecret: e.SPOTIFY_CLIENT_SECRET ?? null,
    redirectUri: e.SPOTIFY_REDIRECT_URI ?? `http://localhost:${options.port}${SPOTIFY_CALLBACK_PATH}`,
    accountsUrl: trimSlash(e.SPOTIFY_ACCOUNTS_URL),
    apiUrl: trimSlash(e.SPOTIFY_API_URL),
    tokenKey,
  };
}
