import { api, EMAIL_AUTH_TEXTS, EMAIL_CODE_TTL_MINUTES } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { conflict, HttpError } from '../../http/errors';
import { clientAddress, emailAllowanceKey } from '../../http/rate-limits';
import { mount } from '../../http/route';
import { signInWays } from '../identities/identities.service';
import { emailIdentityOf, linkEmail, notifyAddressChanged, sendCode, signInWithCode } from './email-auth.service';
import { spendCode } from './email-codes';

/** The same answer for every address (no enumeration): a code is on its way, for this long. */
const SENT = { ok: true as const, expiresInMinutes: EMAIL_CODE_TTL_MINUTES };

/** Sign-in, linking and re-authentication with emailed codes (docs/auth.md, "Email codes"). */
export function emailAuthRoutes(deps: AppDeps): Router {
  const router = Router();
  // Off in production without SMTP_URL (GET /api/auth/methods says email: false).
  const mailer = () => {
    if (!deps.mail) throw new HttpError(404, 'email_unavailable', EMAIL_AUTH_TEXTS.unavailable);
    return deps.mail;
  };
  /**
   * Every code sent to an address counts against that address, whoever asks (docs/auth.md,
   * "Limits"): the short window (a sign-in takes it at the door, per address tried; a link or a
   * re-authentication, whose door counts the person, takes it here) and the day.
   */
  const countCodeTo = async (email: string, req: Request, door: 'perAddress' | 'perPerson') => {
    const address = emailAllowanceKey(email);
    if (door === 'perPerson') await deps.limits.take('emailCodes', { user: address });
    await deps.limits.take('emailCodesDaily', { user: address, ip: clientAddress(req) });
  };

  // Every address gets a code, known or not; an account is made only once its code comes back.
  mount(router, api.emailCodeStart, async ({ body, req }) => {
    const mail = mailer();
    await countCodeTo(body.email, req, 'perAddress');
    await sendCode(mail, req.em, { purpose: 'signIn', email: body.email }, deps.logger);
    return SENT;
  });

  mount(router, api.emailCodeVerify, async ({ body, req }) => {
    mailer();
    const { user, created } = await signInWithCode(req.em, body.email, body.code);
    // Created: its portrait is queued from the outbox (staged with the account).
    if (created) req.effects.relayOutbox();
    const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
    return { token, user: toSelfUser(user) };
  });

  // A new address for the account: only with a fresh proof that it is the owner asking (a stolen
  // token alone cannot move the account to the thief's address), and a code that proves the new
  // address is theirs. Whether it already belongs to someone is said only to whoever holds its code.
  mount(router, api.emailLinkStart, async ({ auth, body, req }) => {
    const mail = mailer();
    await deps.reauth.require(req.em, auth);
    if ((await emailIdentityOf(req.em, auth.userId))?.subject === body.email) {
      throw conflict(EMAIL_AUTH_TEXTS.alreadyYours);
    }
    await countCodeTo(body.email, req, 'perPerson');
    await sendCode(mail, req.em, { purpose: 'link', email: body.email, userId: auth.userId }, deps.logger);
    return SENT;
  });

  mount(router, api.emailLinkVerify, async ({ auth, body, req }) => {
    const mail = mailer();
    const { previous } = await linkEmail(req.em, auth.userId, body.email, body.code);
    if (previous) await notifyAddressChanged(mail, previous, body.email, deps.logger);
    return signInWays(deps, req.em, auth);
  });

  mount(router, api.reauthEmailStart, async ({ auth, req }) => {
    const mail = mailer();
    const identity = await emailIdentityOf(req.em, auth.userId);
    if (!identity) throw conflict(EMAIL_AUTH_TEXTS.noAddress);
    // A stolen token cannot flood the owner's mailbox, nor guess re-authentication codes for long.
    await countCodeTo(identity.subject, req, 'perPerson');
    await sendCode(mail, req.em, { purpose: 'reauth', email: identity.subject, userId: auth.userId }, deps.logger);
    return SENT;
  });

  // The code proves the caller reads the account's current address (one changed since counts no more).
  mount(router, api.reauthEmailVerify, async ({ auth, body, req }) => {
    mailer();
    const email = (await emailIdentityOf(req.em, auth.userId))?.subject ?? '';
    await spendCode(req.em, { purpose: 'reauth', email, userId: auth.userId }, body.code, async () => undefined);
    await deps.reauth.mark(req.em, auth);
    const freshUntil = await deps.reauth.freshUntil(req.em, auth);
    return { freshUntil: freshUntil?.toISOString() ?? null };
  });

  return router;
}
