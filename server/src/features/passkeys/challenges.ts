// The challenges of passkey ceremonies (docs/auth.md, "Passkeys"): single use, bound to the browser
// that asked, for one purpose (and one person), expiring in minutes. Each lives in Redis under the
// hash of a random id that only the asking browser holds, in an HttpOnly cookie sent back to the
// ceremony's own paths; the verification takes it with GETDEL, so a second use finds nothing.
import { createHash, randomBytes } from 'node:crypto';
import { api, buildPath } from '@shared/index';
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { readCookie } from '../../http/cookies';
import { badRequest } from '../../http/errors';

export type ChallengePurpose = 'signUp' | 'signIn' | 'add' | 'reauth';

/** What the verification needs from the options it answers. */
export interface ChallengeRecord {
  purpose: ChallengePurpose;
  challenge: string;
  /** The relying party and origin the options were made for (config.passkeys, or the request's). */
  rpId: string;
  origin: string;
  /** add and reauth: the account asking; its challenge serves nobody else. */
  userId?: number;
}

/** The browser has this long to answer (the options' `timeout` says the same to it). */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const CHALLENGE_COOKIE = 'podmatch_passkey';

export const challengeKey = (id: string) =>
  `podmatch:passkey:challenge:${createHash('sha256').update(id).digest('hex')}`;

/**
 * The cookie goes only to the ceremony's two endpoints (its options path without `/options`), so
 * a sign-in started in one tab does not overwrite a sign-up in progress, and no other request
 * carries it.
 */
const OPTIONS_ENDPOINTS = {
  signUp: api.passkeySignUpOptions,
  signIn: api.passkeySignInOptions,
  add: api.passkeyAddOptions,
  reauth: api.reauthPasskeyOptions,
} as const;

export function cookiePath(purpose: ChallengePurpose, userId?: number): string {
  const path = OPTIONS_ENDPOINTS[purpose].path.replace(/\/options$/, '');
  return buildPath(path, userId === undefined ? {} : { userId });
}

export const CHALLENGE_TEXTS = {
  missing:
    'This passkey request has expired or was started in another browser window. Please try again from this page.',
  used: 'This passkey request has expired or was already used. Please try again.',
  other: 'This passkey request was made for something else. Please try again.',
} as const;

const cookieOptions = (req: Request, record: Pick<ChallengeRecord, 'purpose' | 'origin' | 'userId'>) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  // Over https only the page itself could have asked; plain http in development keeps it usable.
  secure: req.secure || record.origin.startsWith('https:'),
  path: cookiePath(record.purpose, record.userId),
});

/** Saves the challenge of a ceremony's options and gives the asking browser its cookie. */
export async function issueChallenge(redis: Redis, req: Request, res: Response, record: ChallengeRecord) {
  const id = randomBytes(32).toString('base64url');
  await redis.set(challengeKey(id), JSON.stringify(record), 'PX', CHALLENGE_TTL_MS);
  res.cookie(CHALLENGE_COOKIE, id, { ...cookieOptions(req, record), maxAge: CHALLENGE_TTL_MS });
  res.setHeader('Cache-Control', 'no-store');
}

/**
 * Takes (spends) the challenge this browser was given for `purpose` (and `userId`): 400 with a
 * sentence when there is none (another browser, expired, already used) or it was for something else.
 */
export async function takeChallenge(
  redis: Redis,
  req: Request,
  res: Response,
  purpose: ChallengePurpose,
  userId?: number,
): Promise<ChallengeRecord> {
  const id = readCookie(req, CHALLENGE_COOKIE);
  res.clearCookie(CHALLENGE_COOKIE, { path: cookiePath(purpose, userId), httpOnly: true, sameSite: 'strict' });
  if (!id) throw badRequest(CHALLENGE_TEXTS.missing);
  const raw = await redis.getdel(challengeKey(id));
  if (!raw) throw badRequest(CHALLENGE_TEXTS.used);
  const record = JSON.parse(raw) as ChallengeRecord;
  if (record.purpose !== purpose || record.userId !== userId) throw badRequest(CHALLENGE_TEXTS.other);
  return record;
}
