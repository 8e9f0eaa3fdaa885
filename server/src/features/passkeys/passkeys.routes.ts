import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { UserSchema } from '../../core/db/entities';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { conflict } from '../../http/errors';
import { mount } from '../../http/route';
import { signInWays } from '../identities/identities.service';
import { issueChallenge, takeChallenge } from './challenges';
import {
  addPasskey,
  authenticationOptions,
  createPasskeyAccount,
  defaultPasskeyName,
  PASSKEY_TEXTS,
  passkeysOf,
  passkeysOn,
  registrationOptions,
  relyingParty,
  signUpOptions,
  verifyNewPasskey,
  verifyPasskeyUse,
} from './passkeys.service';

// Passkeys (docs/auth.md, "Passkeys"). Each `...Options` answer gives the browser an HttpOnly cookie
// naming its single-use challenge (challenges.ts); the matching verification spends it.
export function passkeysRoutes(deps: AppDeps): Router {
  const router = Router();
  const config = deps.config.passkeys;
  const { redis, logger } = deps;

  mount(router, api.passkeySignUpOptions, async ({ req, res }) => {
    const rp = relyingParty(config, req);
    const options = await signUpOptions(rp);
    await issueChallenge(redis, req, res, { purpose: 'signUp', challenge: options.challenge, ...rp });
    return { options: { ...options } };
  });

  // A new account with this passkey, then a session like any sign-in's.
  mount(router, api.passkeySignUpVerify, async ({ body, req, res }) => {
    passkeysOn(config);
    const record = await takeChallenge(redis, req, res, 'signUp');
    const passkey = await verifyNewPasskey(logger, record, body.response);
    const user = await createPasskeyAccount(req.em, passkey, defaultPasskeyName(req.get('user-agent'), []));
    // Its portrait is queued from the outbox (staged with the account).
    req.effects.relayOutbox();
    const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
    return { token, user: toSelfUser(user) };
  });

  // The button and autofill (conditional mediation) alike: any passkey of this site.
  mount(router, api.passkeySignInOptions, async ({ req, res }) => {
    const rp = relyingParty(config, req);
    const options = await authenticationOptions(rp);
    await issueChallenge(redis, req, res, { purpose: 'signIn', challenge: options.challenge, ...rp });
    return { options: { ...options } };
  });

  mount(router, api.passkeySignInVerify, async ({ body, req, res }) => {
    passkeysOn(config);
    const record = await takeChallenge(redis, req, res, 'signIn');
    const { userId } = await verifyPasskeyUse(req.em, logger, record, body.response);
    const user = await req.em.findOneOrFail(UserSchema, userId);
    const { token } = await deps.sessions.create(req.em, user.id, req.get('user-agent'));
    return { token, user: toSelfUser(user) };
  });

  // Adding a passkey needs a fresh proof (features/auth/reauth.ts), asked at both steps: the
  // options, so nobody is prompted in vain, and the addition itself.
  mount(router, api.passkeyAddOptions, async ({ auth, req, res }) => {
    const rp = relyingParty(config, req);
    await deps.reauth.require(req.em, auth);
    const user = await req.em.findOneOrFail(UserSchema, auth.userId);
    const existing = await passkeysOf(req.em, auth.userId);
    const options = await registrationOptions(
      rp,
      { name: user.displayName, displayName: user.displayName },
      existing.map(({ id, transports }) => ({ id, transports })),
    );
    await issueChallenge(redis, req, res, {
      purpose: 'add',
      challenge: options.challenge,
      ...rp,
      userId: auth.userId,
    });
    return { options: { ...options } };
  });

  mount(router, api.passkeyAdd, async ({ body, auth, req, res }) => {
    passkeysOn(config);
    await deps.reauth.require(req.em, auth);
    const record = await takeChallenge(redis, req, res, 'add', auth.userId);
    const passkey = await verifyNewPasskey(logger, record, body.response);
    const taken = (await passkeysOf(req.em, auth.userId)).map((p) => p.name);
    await addPasskey(req.em, auth.userId, passkey, body.name ?? defaultPasskeyName(req.get('user-agent'), taken));
    return signInWays(deps, req.em, auth);
  });

  // Confirming it is the account's owner with one of its passkeys (before changing its ways in).
  mount(router, api.reauthPasskeyOptions, async ({ auth, req, res }) => {
    const mine = await passkeysOf(req.em, auth.userId);
    if (mine.length === 0) throw conflict(PASSKEY_TEXTS.noPasskey);
    const rp = relyingParty(config, req);
    const options = await authenticationOptions(
      rp,
      mine.map(({ id, transports }) => ({ id, transports })),
    );
    await issueChallenge(redis, req, res, {
      purpose: 'reauth',
      challenge: options.challenge,
      ...rp,
      userId: auth.userId,
    });
    return { options: { ...options } };
  });

  mount(router, api.reauthPasskeyVerify, async ({ body, auth, req, res }) => {
    passkeysOn(config);
    const record = await takeChallenge(redis, req, res, 'reauth', auth.userId);
    await verifyPasskeyUse(req.em, logger, record, body.response, auth.userId);
    await deps.reauth.mark(req.em, auth);
    const freshUntil = await deps.reauth.freshUntil(req.em, auth);
    return { freshUntil: freshUntil?.toISOString() ?? null };
  });

  return router;
}
