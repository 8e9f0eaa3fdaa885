import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadSpotifyConfig } from './spotify-config';
import { decryptToken, encryptToken, parseTokenKey, TokenDecryptError } from './token-crypto';

describe('token encryption at rest', () => {
  const key = randomBytes(32);

  it('round-trips and never stores the clear value', () => {
    const stored = encryptToken('BQD-secret-access-token', key);
    expect(stored).not.toContain('BQD-secret-access-token');
    expect(stored).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decryptToken(stored, key)).toBe('BQD-secret-access-token');
    // A fresh IV each time: the same token never gives the same stored value.
    expect(encryptToken('BQD-secret-access-token', key)).not.toBe(stored);
  });

  it('refuses a wrong key or a changed value', () => {
    const stored = encryptToken('token', key);
    expect(() => decryptToken(stored, randomBytes(32))).toThrow(TokenDecryptError);
    const [v, iv, tag, ct] = stored.split('.');
    const flipped = `${v}.${iv}.${tag}.${ct?.startsWith('A') ? `B${ct.slice(1)}` : `A${ct?.slice(1)}`}`;
    expect(() => decryptToken(flipped, key)).toThrow(TokenDecryptError);
    expect(() => decryptToken('plain-text-token', key)).toThrow(TokenDecryptError);
  });

  it('reads 32-byte keys as hex or base64, and rejects other lengths', () => {
    expect(parseTokenKey(key.toString('hex'))).toEqual(key);
    expect(parseTokenKey(key.toString('base64'))).toEqual(key);
    expect(() => parseTokenKey(randomBytes(16).toString('base64'))).toThrow(/TOKEN_ENCRYPTION_KEY/);
  });

  it('requires a key in production when Spotify is configured, and derives a dev key otherwise', () => {
    const prod = { isProduction: true, port: 5000 };
    expect(() => loadSpotifyConfig({ SPOTIFY_CLIENT_ID: 'id' }, prod)).toThrow(/TOKEN_ENCRYPTION_KEY/);
    const withKey = loadSpotifyConfig({ SPOTIFY_CLIENT_ID: 'id', TOKEN_ENCRYPTION_KEY: key.toString('base64') }, prod);
    expect(withKey.tokenKey).toEqual(key);
    const dev = loadSpotifyConfig({}, { isProduction: false, port: 5123 });
    expect(dev.configured).toBe(false);
    expect(dev.tokenKey).toHaveLength(32);
    expect(dev.redirectUri).toBe('http://localhost:5123/api/spotify/callback');
    expect(dev.apiUrl).toBe('https://api.spotify.com/v1');
    expect(dev.accountsUrl).toBe('https://accounts.spotify.com');
  });
});
