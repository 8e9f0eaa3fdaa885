import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { forbidden, notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { userPolicy } from '../users/user.policy';
import { ensureComputed, feedCountsFor, feedFor, loadViewer, refreshIfLow } from './feed.service';

export function feedRoutes(deps: AppDeps): Router {
  const router = Router();

  // Owner only: a feed reveals who matches whom.
  mount(router, api.feed, async ({ params, query, auth, req }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only see your own feed.');
    const viewer = await loadViewer(req.em, params.userId);
    if (!viewer) throw notFound('User not found.');
    await ensureComputed(req.em, viewer);
    const items = await feedFor(req.em, viewer, query.intent ?? viewer.intent);
    await refreshIfLow(deps.jobs, viewer, items.length).catch((error: unknown) =>
      deps.logger.warn(`feed refresh not queued: ${(error as Error).message}`),
    );
    return items;
  });

  // Owner only.
  mount(router, api.feedCounts, async ({ params, auth, req }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only see your own feed.');
    const viewer = await loadViewer(req.em, params.userId);
    if (!viewer) throw notFound('User not found.');
    await ensureComputed(req.em, viewer);
    return feedCountsFor(req.em, viewer);
  });

  return router;
}
