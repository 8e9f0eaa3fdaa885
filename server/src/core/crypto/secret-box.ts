import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets at rest (Spotify and Bluesky tokens, Bluesky OAuth sessions and states): AES-256-GCM under
// TOKEN_ENCRYPTION_KEY with a random 96-bit IV per value, and an owner as associated data, so a
// ciphertext copied onto another row (another person, another provider) does not decrypt there.
// Stored form: "v2.<iv>.<auth tag>.<ciphertext>", each part base64url. The tag makes any change to a
// stored value (or a wrong key or owner) fail to decrypt instead of yielding garbage. Values of the
// earlier form (v1, no owner) no longer decrypt: those people are asked to reconnect.
//
// Each caller names its owner (`user:<id>` for Spotify, `bluesky:user:<id>` for Bluesky): changing
// one makes every stored value of that kind unreadable.

const VERSION = 'v2';

/** A 32-byte key given as 64 hex digits or as base64 / base64url. */
export function parseEncryptionKey(value: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) {
    throw new Error(
      'Invalid configuration:\n  TOKEN_ENCRYPTION_KEY: must be 32 bytes, as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)',
    );
  }
  return key;
}

/** The associated data of a secret: who (or what) it belongs to. */
export const secretOwner = (name: string): Buffer => Buffer.from(name, 'utf8');

export function encryptSecret(plain: string, key: Buffer, owner: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(owner);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export class SecretDecryptError extends Error {
  constructor() {
    super('A stored secret could not be decrypted (wrong TOKEN_ENCRYPTION_KEY, owner or value)');
    this.name = 'SecretDecryptError';
  }
}

export function decryptSecret(stored: string, key: Buffer, owner: Buffer): string {
  const [version, iv, tag, ciphertext] = stored.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new SecretDecryptError();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(owner);
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptError();
  }
}
