import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { UserSchema } from '../../core/db/entities';
import { toPublicUser, toSelfUser } from '../../core/presenters/user.presenter';
import { forbidden, notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { isBlockedEitherWay } from '../matches/match.service';
import { userPolicy } from './user.policy';
import { updateUser } from './user.service';

export function usersRoutes(deps: AppDeps): Router {
  const router = Router();

  // Any signed-in user: the owner gets their own account fields, others only public ones.
  mount(router, api.getUser, async ({ params, auth, req }) => {
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    if (userPolicy.isOwner(auth, user.id)) return toSelfUser(user);
    // Blocked either way: the other person does not exist for them (docs/matches.md).
    if (await isBlockedEitherWay(req.em, auth.userId, user.id)) throw notFound('User not found.');
    return toPublicUser(user);
  });

  // Owner only.
  mount(router, api.updateUser, async ({ params, body, auth, req }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only change your own profile.');
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    const updated = toSelfUser(await updateUser(req.em, user, body));
    deps.emitter.to(`user:${user.id}`).emit('user:updated', updated);
    return updated;
  });

  // Owner only: re-render the letter avatar (e.g. after a name change); progress arrives by socket.
  mount(router, api.generateAvatar, async ({ params, auth }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only change your own profile.');
    const jobId = await deps.jobs.enqueue('avatarGenerate', { userId: params.userId });
    return { jobId };
  });

  return router;
}
