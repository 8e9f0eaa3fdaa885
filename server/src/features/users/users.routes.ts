import { api, LIMITS, PICTURE_UPLOAD_TEXTS } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { UserSchema } from '../../core/db/entities';
import { toPublicUser, toSelfUser } from '../../core/presenters/user.presenter';
import { notFound } from '../../http/errors';
import { singleFileUpload } from '../../http/multipart';
import { mount } from '../../http/route';
import { replaceProfilePicture } from './profile-picture';
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
    const updated = await updateUser(req.em, user, body);
    req.effects.userUpdated(updated);
    return toSelfUser(updated);
  });

  // The picture is read only after the access rule passed, into memory (nothing on disk if refused).
  mount(
    router,
    api.uploadProfilePicture,
    async ({ params, req }) => {
      const updated = await replaceProfilePicture(req.em, deps.media, params.userId, req.file?.buffer);
      req.effects.emit('user:updated', updated, { userId: params.userId });
      return { profilePicture: updated.profilePicture ?? '' };
    },
    [singleFileUpload('profilePicture', LIMITS.pictureMaxBytes, PICTURE_UPLOAD_TEXTS.tooLarge)],
  );

  // Re-render the generated avatar (e.g. after a name change); progress arrives by socket.
  mount(router, api.generateAvatar, async ({ params }) => {
    const jobId = await deps.jobs.enqueue('avatarGenerate', { userId: params.userId });
    return { jobId };
  });

  return router;
}
