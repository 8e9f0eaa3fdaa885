import { api, rooms } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { deletePicture } from '../../core/media/pictures';
import { endSessions } from '../../core/realtime/emitter';
import { mount } from '../../http/route';
import { deleteAccount, exportAccount } from './account.service';

/** The person's own data (docs/privacy.md); owner only (access rule). */
export function accountRoutes(deps: AppDeps): Router {
  const router = Router();

  mount(router, api.exportAccount, async ({ params, req, res }) => {
    const data = await exportAccount(req.em, params.userId);
    res.setHeader('Content-Disposition', `attachment; filename="podmatch-data-${params.userId}.json"`);
    res.setHeader('Cache-Control', 'no-store');
    return data;
  });

  mount(router, api.deleteAccount, async ({ params, req }) => {
    const deleted = await deleteAccount(req.em, params.userId);
    // After the commit: the other people's matches disappear live, then this person's tabs end.
    for (const match of deleted.matches) {
      deps.emitter
        .to([rooms.user(params.userId), rooms.user(match.otherId)])
        .emit('match:removed', { matchId: match.id, intent: match.intent });
    }
    deps.badges.push(...new Set(deleted.matches.map((m) => m.otherId)));
    endSessions(deps.emitter, deleted.sessionIds, 'logout');
    // Files last: a failure leaves an unreachable file (unguessable name), never a half-deleted person.
    for (const url of deleted.mediaUrls) {
      await deletePicture(deps.media, url).catch((error: unknown) =>
        deps.logger.warn(`media of deleted account ${params.userId} not removed: ${(error as Error).message}`),
      );
    }
    deps.logger.info(`account ${params.userId} deleted`);
    return { ok: true as const };
  });

  return router;
}
