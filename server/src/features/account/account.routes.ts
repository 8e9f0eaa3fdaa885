import { api, rooms } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { sql } from '../../core/db/sql';
import { deletePicture } from '../../core/media/pictures';
import { endSessions } from '../../core/realtime/emitter';
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
    // A linked Bluesky session is revoked at the person's server first (it is read from the row).
    const [linked] = await sql<{ atp_did: string | null }>(req.em, 'select atp_did from users where id = ?', [
      params.userId,
    ]);
    if (linked?.atp_did && deps.bluesky) {
      await deps.bluesky.oauth.revoke(linked.atp_did).catch((error: Error) => {
        deps.logger.warn(`bluesky revoke for deleted account ${params.userId} failed: ${error.message}`);
      });
    }
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
