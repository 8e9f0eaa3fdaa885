import { randomBytes } from 'node:crypto';

/**
 * The stored password of an account that has none (dev login, Spotify sign-in, demo people): the
 * shape of a scrypt hash made of random bytes, so no password ever matches it. Random bytes are as
 * good as hashing a random secret, and computing a real scrypt here would block the event loop for
 * tens of milliseconds on every new account.
 */
export const unusablePassword = () => `scrypt$${randomBytes(16).toString('hex')}$${randomBytes(32).toString('hex')}`;
