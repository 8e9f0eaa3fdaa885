import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSpotifyConfig } from './spotify-config';
import { decryptToken, encryptToken, parseTokenKey, TokenDecryptError, tokenOwner } from './token-crypto';

describe('token encryption at rest', () => {
  const key = randomBytes(32);
  const owner = tokenOwner(7);

  it('round-trips and never stores the clear value', () => {
    const stored = encryptToken('BQD-secret-access-token', key, owner);
    expect(stored).not.toContain('BQD-secret-access-token');
    expect(stored).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decryptToken(stored, key, owner)).toBe('BQD-secret-access-token');
    // A fresh IV each time: the same token never gives the same stored value.
    expect(encryptToken('BQD-secret-access-token', key, owner)).not.toBe(stored);
  });

  it('refuses a wrong key, another owner, or a changed value', () => {
    const stored = encryptToken('token', key, owner);
    expect(() => decryptToken(stored, randomBytes(32), owner)).toThrow(TokenDecryptError);
    // Copied onto user 8's row, user 7's token does not decrypt.
    expect(() => decryptToken(stored, key, tokenOwner(8))).toThrow(TokenDecryptError);
    const [v, iv, tag, ct] = stored.split('.');
    const flipped = `${v}.${iv}.${tag}.${ct?.startsWith('A') ? `B${ct.slice(1)}` : `A${ct?.slice(1)}`}`;
    expect(() => decryptToken(flipped, key, owner)).toThrow(TokenDecryptError);
    expect(() => decryptToken('plain-text-token', key, owner)).toThrow(TokenDecryptError);
    // The earlier form without an owner is not accepted.
    expect(() => decryptToken(stored.replace(/^v2/, 'v1'), key, owner)).toThrow(TokenDecryptError);
  });

  it('reads 32-byte keys as hex or base64, and rejects other lengths', () => {
    expect(parseTokenKey(key.toString('hex'))).toEqual(key);
    expect(parseTokenKey(key.toString('base64'))).toEqual(key);
    expect(() => parseTokenKey(randomBytes(16).toString('base64'))).toThrow(/TOKEN_ENCRYPTION_KEY/);
  });

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
