import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { mount } from '../../http/route';
import { currentIntentOf } from '../users/user.service';
import { profileDetails } from './profile-details.service';

/** Profile pages (docs/profiles.md). The `viewer` rule: yourself, or someone in your feed or matches. */
export function profilesRoutes(deps: Pick<AppDeps, 'artwork'>): Router {
  const router = Router();
  mount(router, api.profileDetails, async ({ params, query, auth, viewedIntent, req }) => {
    const intent = viewedIntent ?? query.intent ?? (await currentIntentOf(req.em, auth.userId));
    return profileDetails(req.em, auth.userId, params.userId, intent, deps.artwork);
  });
  return router;
}
