// Sign-in, linking and re-authentication with emailed codes (docs/auth.md, "Email codes").
import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { EMAIL_AUTH_TEXTS, FALLBACK_DISPLAY_NAME, LIMITS } from '@shared/index';
import { type User, type UserIdentity, UserIdentitySchema, UserSchema } from '../../core/db/entities';
import { stageJob } from '../../core/jobs/outbox';
import type { Logger } from '../../core/logger';
import type { Mailer } from '../../core/mail/mailer';
import { conflict, HttpError } from '../../http/errors';
import { createUser } from '../users/user.service';
import { addressChangedMail, codeMail } from './email-auth.mail';
import { type CodeTarget, issueCode, spendCode } from './email-codes';

/**
 * Issues a code for the target and mails it. The request waits for the mail server's answer: a
 * person told "sent" has a message on its way. Known and unknown addresses take exactly this path.
 */
export async function sendCode(mailer: Mailer, em: EntityManager, target: CodeTarget, logger: Logger): Promise<void> {
  const code = await issueCode(em, target);
  try {
    await mailer.send(codeMail(target.email, target.purpose, code));
  } catch (error) {
    // The mail server's own words go to the log (never the code or the address); people get a sentence.
    logger.error(`email code: the mail server refused or did not answer: ${(error as Error).message}`);
    throw new HttpError(503, 'mail_unavailable', EMAIL_AUTH_TEXTS.notSent);
  }
}

/** The account's email identity, if it has one (at most one: a partial unique index). */
export function emailIdentityOf(em: EntityManager, userId: number): Promise<UserIdentity | null> {
  return em.findOne(UserIdentitySchema, { user: userId, provider: 'email' });
}

/** A login name nobody chose: people sign in with their address, and never see it elsewhere. */
const newUsername = () => `listener_${randomBytes(5).toString('hex')}`;

/**
 * A first display name the person confirms while setting up: the first word of the address's local
 * part ("maya.smith+news@..." -> "Maya"), never the whole address (others see display names).
 */
export function displayNameFor(email: string): string {
  const local = email.split('@')[0] ?? '';
  const word = local.split(/[^\p{L}]+/u).find((part) => part.length >= 2);
  if (!word) return FALLBACK_DISPLAY_NAME;
  return `${word[0]?.toUpperCase()}${word.slice(1)}`.slice(0, LIMITS.displayNameMaxLength);
}

/**
 * Trades a right sign-in code for the account of its address; an address without one gets it now,
 * with its email identity and its portrait job (staged with the account). Two sign-ups of one
 * address meet the unique index on (provider, subject): the loser's transaction (and its spending
 * of the code) rolls back and its retry opens the winner's account; a username clash retries too.
 */
export async function signInWithCode(
  em: EntityManager,
  email: string,
  code: string,
): Promise<{ user: User; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await spendCode(em, { purpose: 'signIn', email }, code, async (tx) => {
        const now = new Date();
        const identity = await tx.findOne(UserIdentitySchema, { provider: 'email', subject: email });
        if (identity) {
          identity.lastUsedAt = now;
          await tx.flush();
          return { userId: identity.user.id, created: false };
        }
        const user = await createUser(tx, {
          username: newUsername(),
          displayName: displayNameFor(email),
          signUpMethod: 'email',
        });
        tx.create(UserIdentitySchema, { user, provider: 'email', subject: email, lastUsedAt: now });
        await stageJob(tx, 'avatarGenerate', { userId: user.id });
        await tx.flush();
        return { userId: user.id, created: true };
      });
      return { user: await em.findOneOrFail(UserSchema, outcome.userId), created: outcome.created };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
    }
  }
}

/**
 * Makes the address the code was sent to the account's email (replacing its previous one, in the
 * same transaction); answers the previous address, if any. An address that is another account's
 * way in is a 409, also when two accounts link it at once (the unique index decides; the loser's
 * code stays unspent, and it answers the same 409).
 */
export async function linkEmail(
  em: EntityManager,
  userId: number,
  email: string,
  code: string,
): Promise<{ previous: string | null }> {
  try {
    return await spendCode(em, { purpose: 'link', email, userId }, code, async (tx) => {
      const owner = await tx.findOne(UserIdentitySchema, { provider: 'email', subject: email });
      if (owner) {
        throw conflict(owner.user.id === userId ? EMAIL_AUTH_TEXTS.alreadyYours : EMAIL_AUTH_TEXTS.addressTaken);
      }
      const current = await emailIdentityOf(tx, userId);
      // Deleted now, before the insert at commit: one email identity per account (partial unique index).
      if (current) await tx.nativeDelete(UserIdentitySchema, { id: current.id });
      tx.create(UserIdentitySchema, { user: userId, provider: 'email', subject: email });
      await tx.flush();
      return { previous: current?.subject ?? null };
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(EMAIL_AUTH_TEXTS.addressTaken);
    throw error;
  }
}

/** Tells the address an account left that it did (best effort: the change is made either way). */
export async function notifyAddressChanged(
  mailer: Mailer,
  previous: string,
  newAddress: string,
  logger: Logger,
): Promise<void> {
  await mailer.send(addressChangedMail(previous, newAddress)).catch((error: Error) => {
    logger.warn(`email link: the notice to the previous address was not sent: ${error.message}`);
  });
}
