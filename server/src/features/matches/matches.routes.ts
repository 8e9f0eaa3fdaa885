import { api, type Intent } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { replyDelayMs } from '../../core/matches/demo-replies';
import { badRequest } from '../../http/errors';
import { mount } from '../../http/route';
import { currentIntentOf } from '../users/user.service';
import { badgesFor } from './badges.service';
import {
  announceMutualMatch,
  block,
  decide,
  listMatches,
  markSeen,
  rememberPass,
  report,
  setFavorite,
  undoPass,
  unmatch,
  viewOf,
} from './match.service';

/**
 * Matches (docs/matches.md). Who may call what is each endpoint's access rule
 * (shared/src/api/matches.ts): a match is seen or changed only by its two people, once mutual.
 */
export function matchesRoutes(deps: AppDeps): Router {
  const router = Router();
  // Events, badges and relays go on the request's unit of work (req.effects), carried out once the
  // handler succeeded: listeners never see state the database does not have.
  const removed = (req: Request, userIds: number[], matchId: number, intent: Intent) =>
    req.effects.emit('match:removed', { matchId, intent }, { userIds });

  mount(router, api.listMatches, async ({ params, query, req }) =>
    listMatches(
      req.em,
      params.userId,
      query.intent ?? (await currentIntentOf(req.em, params.userId)),
      query,
      deps.artwork,
    ),
  );

  mount(router, api.badges, async ({ params, req }) => badgesFor(req.em, params.userId));

  mount(router, api.getUserMatch, async ({ match, auth, req }) => viewOf(req.em, match, auth.userId, deps.artwork));

  mount(router, api.getMatch, async ({ match, auth, req }) => viewOf(req.em, match, auth.userId, deps.artwork));

  // The caller (user1Id, the access rule) sets only their own flag; the server orders the pair and scores it.
  mount(router, api.createMatch, async ({ body, auth, req }) => {
    // A demo person (other than SPEC's one) answers later, as a person would (docs/matches.md): the
    // answer is staged with the like (the job outbox) and relayed once the request succeeded.
    const result = await decide(req.em, auth.userId, body.user2Id, body.intent, body.user1Liked, {
      demoReplyDelayMs: replyDelayMs(deps.config.demoReplyDelay),
    });
    // A match stages its pushes too (docs/notifications.md).
    if (result.demoRepliesLater || result.becameMutual) req.effects.relayOutbox();
    const view = await viewOf(req.em, result.row, auth.userId, deps.artwork);
    // Announced under the pair lock, not with req.effects: a block must not overtake it (decide.ts).
    if (result.becameMutual) await announceMutualMatch(req.em, deps.publisher, deps.artwork, result.row, view);
    req.effects.pushBadges([auth.userId, ...(result.becameMutual ? [result.otherId] : [])]);
    if (!body.user1Liked) await rememberPass(deps.redis, auth.userId, body.user2Id, body.intent, result.row.id);
    return { ...view, instantDemoMatch: result.instantDemoMatch };
  });

  // Only the caller's own most recent pass, while it is recent and still a pass; otherwise 404.
  mount(router, api.undoPass, async ({ body, auth, req }) => {
    await undoPass(req.em, deps.redis, auth.userId, body.userId, body.intent);
    req.effects.pushBadges([auth.userId]);
    return { ok: true as const };
  });

  // The flag is the caller's own.
  mount(router, api.updateMatch, async ({ match, body, auth, req }) =>
    viewOf(req.em, await setFavorite(req.em, match, auth.userId, body.isFavorite), auth.userId, deps.artwork),
  );

  // Clears the caller's unread badge for it.
  mount(router, api.markMatchSeen, async ({ match, auth, req }) => {
    const view = await viewOf(req.em, await markSeen(req.em, match, auth.userId), auth.userId, deps.artwork);
    req.effects.pushBadges([auth.userId]);
    return view;
  });

  // Ends it for both.
  mount(router, api.unmatch, async ({ match, req }) => {
    const updated = await unmatch(req.em, match);
    const parties = [updated.user1_id, updated.user2_id];
    removed(req, parties, updated.id, updated.intent);
    req.effects.pushBadges(parties);
    return { ok: true as const };
  });

  // Anyone signed in may block anyone else (themselves excepted), for themselves.
  mount(router, api.blockUser, async ({ body, auth, req }) => {
    if (body.userId === auth.userId) throw badRequest('You cannot block yourself.');
    const hidden = await block(req.em, auth.userId, body.userId);
    for (const row of hidden) removed(req, [auth.userId, body.userId], row.id, row.intent);
    req.effects.pushBadges([auth.userId, body.userId]);
    return { ok: true as const };
  });

  // Someone the caller has come across (the access rule); a given matchId must be a match of exactly these two.
  mount(router, api.reportUser, async ({ body, auth, req }) => {
    await report(req.em, auth.userId, body);
    return { ok: true as const };
  });

  return router;
}
