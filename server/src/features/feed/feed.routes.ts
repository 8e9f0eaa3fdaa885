import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { ensureComputed, feedCountsFor, feedFor, loadViewer, refreshIfLow } from './feed.service';

export function feedRoutes(deps: AppDeps): Router {
  const router = Router();

  // Owner only (access rule): a feed reveals who matches whom.
  mount(router, api.feed, async ({ params, query, req }) => {
    const viewer = await loadViewer(req.em, params.userId);
    if (!viewer) throw notFound('User not found.');
    await ensureComputed(req.em, viewer);
    const items = await feedFor(req.em, viewer, query.intent ?? viewer.intent, deps.artwork);
    await refreshIfLow(deps.jobs, viewer, items.length).catch((error: unknown) =>
      deps.logger.warn(`feed refresh not queued: ${(error as Error).message}`),
    );
    return items;
  });

  mount(router, api.feedCounts, async ({ params, req }) => {
    const viewer = await loadViewer(req.em, params.userId);
    if (!viewer) throw notFound('User not found.');
    await ensureComputed(req.em, viewer);
    return feedCountsFor(req.em, viewer);
  });

  return router;
}
