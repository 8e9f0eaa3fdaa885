// Passkeys (WebAuthn, docs/auth.md "Passkeys") with @simplewebauthn/server: signing up, signing in
// (the button, or autofill's conditional mediation), adding one to an account and confirming it is
// the account's owner. A passkey is an identity (user_identities, provider 'passkey') whose subject is
// the credential id; it holds the public key, the signature counter, transports and backup flags.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Request } from 'express';
import type { AppConfig } from '../../config';
import { type User, UserIdentitySchema, UserSchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import type { Logger } from '../../core/logger';
import { badRequest, conflict, HttpError } from '../../http/errors';
import { createUser } from '../users/user.service';
import { CHALLENGE_TTL_MS, type ChallengeRecord } from './challenges';

export const PASSKEY_TEXTS = {
  unavailable: 'Passkeys are not set up on this server. Please sign in another way.',
  notRegistered:
    'This passkey is not registered here. It may have been removed from its account: sign in another way, or create an account.',
  otherAccount: 'This passkey belongs to another account. Use a passkey of the account you are signed in to.',
  otherSite: 'This passkey answer was made for another website, so it was refused. Please try again on this page.',
  failed: 'Your passkey could not be checked. Please try again.',
  counter:
    'This passkey reported an older use than one already seen, which can mean it was copied. For your safety it was refused: sign in another way, and remove it from your account.',
  alreadyRegistered: 'This passkey is already registered here. Sign in with it instead.',
  noPasskey: 'There is no passkey on your account to confirm with. Use a code sent to your email instead.',
  sameOriginOnly: 'Passkeys work only on the page of this site itself. Please open the app at its own address.',
  ipAddress: 'Passkeys need the site to be opened by name, not by IP address. Open it at http://localhost instead.',
} as const;

/** The WebAuthn user of a new account: nothing is known about the person yet. */
const NEW_ACCOUNT_WEBAUTHN_NAME = 'PodMatch account';
/** The display name of an account a passkey opened, until the person gives theirs in setup. */
export const NEW_ACCOUNT_DISPLAY_NAME = 'New member';

/** The relying party and origin a ceremony is for. */
export interface RelyingParty {
  rpName: string;
  rpId: string;
  origin: string;
}

/** 503 with a sentence where passkeys cannot work (production without PUBLIC_URL). */
export function passkeysOn(config: AppConfig['passkeys']): NonNullable<AppConfig['passkeys']> {
  if (!config) throw new HttpError(503, 'passkeys_unavailable', PASSKEY_TEXTS.unavailable);
  return config;
}

/**
 * PUBLIC_URL's host and origin (config.passkeys). Without PUBLIC_URL, outside production only, the
 * page's own origin: its Origin header must name the host the browser asked (Host), so a page of
 * another site cannot get options for itself here (a browser sends Origin with every POST; without
 * one, the host asked). IP addresses are not valid relying party ids.
 */
export function relyingParty(setting: AppConfig['passkeys'], req: Request): RelyingParty {
  const config = passkeysOn(setting);
  if (config.rpId && config.origin) return { rpName: config.rpName, rpId: config.rpId, origin: config.origin };
  const host = req.get('host') ?? '';
  const origin = req.get('origin') ?? `${req.protocol}://${host}`;
  if (!URL.canParse(origin) || new URL(origin).host !== host) throw badRequest(PASSKEY_TEXTS.sameOriginOnly);
  const page = new URL(origin);
  if (net.isIP(page.hostname.replace(/^\[|\]$/g, '')) !== 0) throw badRequest(PASSKEY_TEXTS.ipAddress);
  return { rpName: config.rpName, rpId: page.hostname, origin: page.origin };
}

/** A passkey as stored: what verifying its next signature needs. */
interface PasskeyRow {
  id: number;
  user_id: number;
  subject: string;
  handle: string | null;
  public_key: string | null;
  sign_count: string | null;
  transports: string | null;
}

const parseTransports = (text: string | null): AuthenticatorTransportFuture[] => {
  try {
    const list: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(list) ? list.filter((t): t is AuthenticatorTransportFuture => typeof t === 'string') : [];
  } catch {
    return [];
  }
};

/** The account's passkeys, as the options of adding one (excluded) or confirming with one (allowed) list them. */
export async function passkeysOf(em: EntityManager, userId: number) {
  const rows = await sql<PasskeyRow>(
    em,
    `select id, user_id, subject, handle, public_key, sign_count, transports from user_identities
      where user_id = ? and provider = 'passkey' order by id`,
    [userId],
  );
  return rows.map((row) => ({ id: row.subject, name: row.handle, transports: parseTransports(row.transports) }));
}

// --- Options ---

export async function registrationOptions(
  rp: RelyingParty,
  user: { name: string; displayName: string },
  exclude: { id: string; transports: AuthenticatorTransportFuture[] }[] = [],
) {
  return generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpId,
    // A random user handle (the library's default): it names nobody.
    userName: user.name,
    userDisplayName: user.displayName,
    attestationType: 'none',
    // Discoverable: signing in needs no username, and autofill can offer it.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    excludeCredentials: exclude,
    timeout: CHALLENGE_TTL_MS,
  });
}

export const signUpOptions = (rp: RelyingParty) =>
  registrationOptions(rp, { name: NEW_ACCOUNT_WEBAUTHN_NAME, displayName: NEW_ACCOUNT_WEBAUTHN_NAME });

export function authenticationOptions(
  rp: RelyingParty,
  allow: { id: string; transports: AuthenticatorTransportFuture[] }[] = [],
) {
  // No allowCredentials for a sign-in: the browser offers every passkey of this site (discoverable).
  return generateAuthenticationOptions({
    rpID: rp.rpId,
    allowCredentials: allow,
    userVerification: 'preferred',
    timeout: CHALLENGE_TTL_MS,
  });
}

// --- Verifications ---

/** Why the library refused a response, as a sentence for people (the details go to the log). */
function refusal(error: unknown): HttpError {
  const message = (error as Error).message ?? '';
  if (/origin|RP ID/i.test(message)) return badRequest(PASSKEY_TEXTS.otherSite);
  return badRequest(PASSKEY_TEXTS.failed);
}

/** What every ceremony is checked against: its challenge, and the origin and relying party it was made for. */
const expectationsOf = (record: ChallengeRecord) => ({
  expectedChallenge: record.challenge,
  expectedOrigin: record.origin,
  expectedRPID: record.rpId,
  // 'preferred': a security key without a PIN still makes and uses a passkey (presence is required).
  requireUserVerification: false,
});

/** Runs a SimpleWebAuthn verification: a refusal (thrown or not verified) is a 400 sentence. */
async function verified<T extends { verified: boolean }>(
  logger: Logger,
  ceremony: 'registration' | 'assertion',
  verify: () => Promise<T>,
): Promise<T & { verified: true }> {
  let result: T;
  try {
    result = await verify();
  } catch (error) {
    logger.info(`passkey ${ceremony} refused: ${(error as Error).message}`);
    throw refusal(error);
  }
  if (!result.verified) throw badRequest(PASSKEY_TEXTS.failed);
  return result as T & { verified: true };
}

/** A new passkey, checked against its challenge: what to store. */
export interface NewPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: AuthenticatorTransportFuture[];
  backedUp: boolean;
  deviceType: string;
}

export async function verifyNewPasskey(
  logger: Logger,
  record: ChallengeRecord,
  response: Record<string, unknown>,
): Promise<NewPasskey> {
  const result = await verified(logger, 'registration', () =>
    verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      ...expectationsOf(record),
    }),
  );
  const info = result.registrationInfo;
  return {
    credentialId: info.credential.id,
    publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    backedUp: info.credentialBackedUp,
    deviceType: info.credentialDeviceType,
  };
}

/** The identity columns of a new passkey. */
const identityFields = (passkey: NewPasskey, name: string) => ({
  provider: 'passkey' as const,
  subject: passkey.credentialId,
  handle: name,
  publicKey: passkey.publicKey,
  signCount: passkey.counter,
  transports: JSON.stringify(passkey.transports),
  backedUp: passkey.backedUp,
  deviceType: passkey.deviceType,
  lastUsedAt: new Date(),
});

const isCredentialClash = (error: unknown) =>
  error instanceof UniqueConstraintViolationException && /user_identities_provider_subject_unique/.test(error.message);

/**
 * Opens an account with this passkey (the account, its passkey identity and the job that paints its
 * portrait commit together). A username is drawn at random; a clash draws another.
 */
export async function createPasskeyAccount(em: EntityManager, passkey: NewPasskey, name: string): Promise<User> {
  for (let attempt = 1; ; attempt++) {
    try {
      const created = await em.fork().transactional(async (tx) => {
        const user = await createUser(tx, {
          username: `passkey_${randomBytes(5).toString('hex')}`,
          displayName: NEW_ACCOUNT_DISPLAY_NAME,
          signUpMethod: 'passkey',
        });
        tx.create(UserIdentitySchema, { user, ...identityFields(passkey, name) });
        await stageJob(tx, 'avatarGenerate', { userId: user.id });
        return user;
      });
      return await em.findOneOrFail(UserSchema, created.id);
    } catch (error) {
      if (isCredentialClash(error)) throw conflict(PASSKEY_TEXTS.alreadyRegistered);
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
}

/** Adds a passkey to an account; 409 when that credential is already registered (here or elsewhere). */
export async function addPasskey(em: EntityManager, userId: number, passkey: NewPasskey, name: string) {
  try {
    await em.fork().transactional(async (tx) => {
      tx.create(UserIdentitySchema, { user: tx.getReference(UserSchema, userId), ...identityFields(passkey, name) });
    });
  } catch (error) {
    if (isCredentialClash(error)) throw conflict(PASSKEY_TEXTS.alreadyRegistered);
    throw error;
  }
}

/**
 * Checks a sign-in (or a confirmation) by passkey against its challenge and the stored public key,
 * then records the use: the counter must move forward unless the authenticator keeps none (0 both
 * times). The counter is compared and written in one statement, so two uses of one counter value
 * racing each other cannot both pass. `owner`: the account the passkey must belong to (reauth).
 */
export async function verifyPasskeyUse(
  em: EntityManager,
  logger: Logger,
  record: ChallengeRecord,
  response: Record<string, unknown>,
  owner?: number,
): Promise<{ userId: number; identityId: number }> {
  const credentialId = typeof response.id === 'string' ? response.id : '';
  const [passkey] = credentialId
    ? await sql<PasskeyRow>(
        em,
        `select id, user_id, subject, handle, public_key, sign_count, transports from user_identities
          where provider = 'passkey' and subject = ?`,
        [credentialId.slice(0, 1024)],
      )
    : [];
  if (!passkey?.public_key) throw badRequest(PASSKEY_TEXTS.notRegistered);
  if (owner !== undefined && passkey.user_id !== owner) throw badRequest(PASSKEY_TEXTS.otherAccount);
  const publicKey = passkey.public_key;
  const result = await verified(logger, 'assertion', () =>
    verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      ...expectationsOf(record),
      credential: {
        id: passkey.subject,
        publicKey: isoBase64URL.toBuffer(publicKey),
        // The counter is checked below, after the signature, in the statement that records it.
        counter: 0,
        transports: parseTransports(passkey.transports),
      },
    }),
  );
  const { newCounter, credentialBackedUp } = result.authenticationInfo;
  const updated = await sql<{ id: number }>(
    em,
    `update user_identities set sign_count = ?, backed_up = ?, last_used_at = now(), updated_at = now()
      where id = ? and (? > coalesce(sign_count, 0) or (? = 0 and coalesce(sign_count, 0) = 0))
      returning id`,
    [newCounter, credentialBackedUp, passkey.id, newCounter, newCounter],
  );
  if (updated.length === 0) {
    logger.warn(
      `passkey ${passkey.id} of user ${passkey.user_id} refused: its counter ${newCounter} is not past ${passkey.sign_count} (a cloned authenticator?)`,
    );
    throw badRequest(PASSKEY_TEXTS.counter);
  }
  return { userId: passkey.user_id, identityId: passkey.id };
}

// --- Names ---

const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Version\/[\d.]+.*Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];

/**
 * A passkey's name when the person gives none: where it was made ("Chrome on Linux"), else "Passkey
 * 2" (its number on the account); also when the account already has a passkey of that name.
 */
export function defaultPasskeyName(userAgent: string | undefined, taken: (string | null)[]): string {
  const ua = userAgent ?? '';
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1];
  const named = browser && system ? `${browser} on ${system}` : undefined;
  if (named && !taken.includes(named)) return named;
  return `Passkey ${taken.length + 1}`;
}
