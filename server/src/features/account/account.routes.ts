import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { mount } from '../../http/route';
import { deleteAccount, exportAccount } from './account.service';

/** The person's own data (docs/privacy.md); owner only (access rule). */
export function accountRoutes(deps: AppDeps): Router {
  const router = Router();

  mount(router, api.exportAccount, async ({ params, req, res }) => {
    const data = await exportAccount(req.em, params.userId, deps.media);
    res.setHeader('Content-Disposition', `attachment; filename="podmatch-data-${params.userId}.json"`);
    res.setHeader('Cache-Control', 'no-store');
    return data;
  });

  mount(router, api.deleteAccount, async ({ params, req }) => {
    await deleteAccount({ ...deps, effects: req.effects }, req.em, params.userId);
    return { ok: true as const };
  });

  return router;
}
