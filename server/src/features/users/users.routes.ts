import { api, rooms } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { UserSchema } from '../../core/db/entities';
import { toPublicUser, toSelfUser } from '../../core/presenters/user.presenter';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { publicUserRow, updateUser } from './user.service';

/** Users (access rules in shared/src/api/users.ts): people change only themselves. */
export function usersRoutes(deps: AppDeps): Router {
  const router = Router();

  // The owner gets their account; anyone else only what the `viewer` rule let them see.
  mount(router, api.getUser, async ({ params, viewedIntent, req }) => {
    if (viewedIntent) return toPublicUser(await publicUserRow(req.em, params.userId, viewedIntent), viewedIntent);
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    return toSelfUser(user);
  });

  mount(router, api.updateUser, async ({ params, body, req }) => {
    const user = await req.em.findOne(UserSchema, params.userId);
    if (!user) throw notFound('User not found.');
    const updated = toSelfUser(await updateUser(req.em, user, body));
    deps.emitter.to(rooms.user(user.id)).emit('user:updated', updated);
    return updated;
  });

  // Re-render the letter avatar (e.g. after a name change); progress arrives by socket.
  mount(router, api.generateAvatar, async ({ params }) => {
    const jobId = await deps.jobs.enqueue('avatarGenerate', { userId: params.userId });
    return { jobId };
  });

  return router;
}
