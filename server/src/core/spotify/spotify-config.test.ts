import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSpotifyConfig } from './spotify-config';

describe('Spotify settings', () => {
  const key = randomBytes(32);

  it('requires a key whenever Spotify is configured, in production and in development alike', () => {
    for (const isProduction of [true, false]) {
      const mode = { isProduction, port: 5000 };
      expect(() => loadSpotifyConfig({ SPOTIFY_CLIENT_ID: 'id' }, mode)).toThrow(/TOKEN_ENCRYPTION_KEY: required/);
      const withKey = loadSpotifyConfig(
        { SPOTIFY_CLIENT_ID: 'id', TOKEN_ENCRYPTION_KEY: key.toString('base64') },
        mode,
      );
      expect(withKey.tokenKey).toEqual(key);
    }
    const dev = loadSpotifyConfig({}, { isProduction: false, port: 5123 });
    expect(dev.configured).toBe(false);
    expect(dev.tokenKey).toHaveLength(32);
    expect(dev.redirectUri).toBe('http://localhost:5123/api/spotify/callback');
    expect(dev.apiUrl).toBe('https://api.spotify.com/v1');
    expect(dev.accountsUrl).toBe('https://accounts.spotify.com');
  });
});
