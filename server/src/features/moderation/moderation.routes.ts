// Trust and safety (docs/moderation.md): the routes parse, call the services and answer. Who may
// call each is the contract's access rule (moderator, admin, owner), enforced before the handler.
import { api } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { act, claim, decideAppeal, fileAppeal, fileAppealWithToken, release } from './actions.service';
import { markSeen, unseenNotices } from './notices';
import { appealById, openAppealsFor, queue, subjectDetail } from './queue.service';
import { auditLog, transparencyReport } from './transparency.service';

export function moderationRoutes(deps: AppDeps): Router {
  const router = Router();
  const withEffects = (req: Request) => ({ ...deps, effects: req.effects });

  mount(router, api.moderationQueue, async ({ query, req }) => ({ subjects: await queue(req.em, query) }));
  mount(router, api.moderationSubject, async ({ params, req }) => subjectDetail(req.em, params.subjectId));
  mount(router, api.moderationClaim, async ({ params, auth, role, req }) =>
    claim(req.em, { userId: auth.userId, role }, params.subjectId),
  );
  mount(router, api.moderationRelease, async ({ params, auth, role, req }) => {
    await release(req.em, { userId: auth.userId, role }, params.subjectId);
    return { ok: true as const };
  });
  mount(router, api.moderationAct, async ({ params, body, auth, role, req }) =>
    act(withEffects(req), req.em, { userId: auth.userId, role }, params.subjectId, body),
  );
  mount(router, api.moderationAppeals, async ({ auth, req }) => ({
    appeals: await openAppealsFor(req.em, auth.userId),
  }));
  mount(router, api.moderationDecideAppeal, async ({ params, body, auth, role, req }) => {
    await decideAppeal(withEffects(req), req.em, { userId: auth.userId, role }, params.appealId, body);
    const appeal = await appealById(req.em, params.appealId);
    if (!appeal) throw notFound('No such appeal.');
    return appeal;
  });
  mount(router, api.adminAuditLog, async ({ query, req }) => auditLog(req.em, query.before));
  mount(router, api.adminTransparency, async ({ query, req }) => transparencyReport(req.em, query));

  // The person's own statements of reasons and appeals.
  mount(router, api.myNotices, async ({ auth, req }) => ({ notices: await unseenNotices(req.em, auth.userId) }));
  mount(router, api.noticeSeen, async ({ params, auth, req }) => {
    if (!(await markSeen(req.em, auth.userId, params.noticeId))) throw notFound('No such notice.');
    return { ok: true as const };
  });
  mount(router, api.appealAction, async ({ body, auth, req }) => {
    await fileAppeal(req.em, auth.userId, body.actionId, body.text);
    return { ok: true as const };
  });
  mount(router, api.appealWhileSuspended, async ({ body, req }) => {
    await fileAppealWithToken(deps, req.em, body.token, body.text);
    return { ok: true as const };
  });

  return router;
}
