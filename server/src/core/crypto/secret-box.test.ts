import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blueskyOwner, stateOwner } from '../bluesky/bluesky-client';
import { spotifyOwner } from '../spotify/spotify-tokens';
import { decryptSecret, encryptSecret, parseEncryptionKey, SecretDecryptError, secretOwner } from './secret-box';

describe('secrets at rest', () => {
  const key = randomBytes(32);
  const owner = spotifyOwner(7);

  it('round-trips and never stores the clear value', () => {
    const stored = encryptSecret('BQD-secret-access-token', key, owner);
    expect(stored).not.toContain('BQD-secret-access-token');
    expect(stored).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decryptSecret(stored, key, owner)).toBe('BQD-secret-access-token');
    // A fresh IV each time: the same token never gives the same stored value.
    expect(encryptSecret('BQD-secret-access-token', key, owner)).not.toBe(stored);
  });

  it('refuses a wrong key, another owner, or a changed value', () => {
    const stored = encryptSecret('token', key, owner);
    expect(() => decryptSecret(stored, randomBytes(32), owner)).toThrow(SecretDecryptError);
    // Copied onto user 8's row, user 7's token does not decrypt.
    expect(() => decryptSecret(stored, key, spotifyOwner(8))).toThrow(SecretDecryptError);
    // Nor does a Spotify token copied into the same person's Bluesky session.
    expect(() => decryptSecret(stored, key, blueskyOwner(7))).toThrow(SecretDecryptError);
    const [v, iv, tag, ct] = stored.split('.');
    const flipped = `${v}.${iv}.${tag}.${ct?.startsWith('A') ? `B${ct.slice(1)}` : `A${ct?.slice(1)}`}`;
    expect(() => decryptSecret(flipped, key, owner)).toThrow(SecretDecryptError);
    expect(() => decryptSecret('plain-text-token', key, owner)).toThrow(SecretDecryptError);
    // The earlier form without an owner is not accepted.
    expect(() => decryptSecret(stored.replace(/^v2/, 'v1'), key, owner)).toThrow(SecretDecryptError);
  });

  it('reads 32-byte keys as hex or base64, and rejects other lengths', () => {
    expect(parseEncryptionKey(key.toString('hex'))).toEqual(key);
    expect(parseEncryptionKey(key.toString('base64'))).toEqual(key);
    expect(() => parseEncryptionKey(randomBytes(16).toString('base64'))).toThrow(/TOKEN_ENCRYPTION_KEY/);
  });

  // Values written by the earlier module (core/spotify/token-crypto.ts) before it became this one:
  // stored tokens, sessions and states keep decrypting, with each provider's owner spelled as before.
  it('decrypts what was stored before: same format, same associated data per provider', () => {
    const earlierKey = Buffer.alloc(32, 0x2a);
    const stored = {
      spotify: 'v2.zLo0G3CrvJxkibnD.M8xrayiGG6lu3ectbOZSuQ.OeTZ5-ljhSavY5cepQ8BSURg',
      bluesky: 'v2.fPSfs8GSCY9H_BJC.yOSigkOBTura9evn1zodcw.fBlX58RO3rJA2Y8TSZzw',
      state: 'v2.oDoi08OWfDCQsXyD.-bNDxzJGOzUqGP4zcJ-PAw.DhOOeTBbyDACpoQ',
    };
    expect(decryptSecret(stored.spotify, earlierKey, spotifyOwner(42))).toBe('BQD-spotify-access');
    expect(decryptSecret(stored.bluesky, earlierKey, blueskyOwner(42))).toBe('bluesky-refresh');
    expect(decryptSecret(stored.state, earlierKey, stateOwner('abc'))).toBe('{"state":1}');
    // The owners as they were written: changing one would make every stored value of its kind unreadable.
    expect(spotifyOwner(42)).toEqual(secretOwner('user:42'));
    expect(blueskyOwner(42)).toEqual(secretOwner('bluesky:user:42'));
    expect(stateOwner('abc')).toEqual(secretOwner('bluesky-state:abc'));
  });
});
