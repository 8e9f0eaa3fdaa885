import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { mount } from '../../http/route';
import { removeSignInWay, renamePasskey, signInWays } from './identities.service';

// An account's ways to sign in (docs/auth.md, "Ways to sign in"), owner only.
export function identitiesRoutes(deps: AppDeps): Router {
  const router = Router();

  mount(router, api.signInWays, async ({ auth, req }) => signInWays(deps, req.em, auth));

  mount(router, api.renamePasskey, async ({ params, body, auth, req }) => {
    await renamePasskey(req.em, auth.userId, params.wayId, body.name);
    return signInWays(deps, req.em, auth);
  });

  // A fresh proof first, never the last way in (ways-in.ts).
  mount(router, api.removeSignInWay, async ({ params, auth, req }) => {
    await removeSignInWay({ ...deps, effects: req.effects }, req.em, auth, params.wayId);
    return signInWays(deps, req.em, auth);
  });

  return router;
}
