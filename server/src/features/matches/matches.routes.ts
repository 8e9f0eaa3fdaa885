import { api, type Intent, type MatchView, rooms } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { badRequest, forbidden, notFound } from '../../http/errors';
import { mount } from '../../http/route';
import { userPolicy } from '../users/user.policy';
import { pushBadges } from './badges.service';
import {
  block,
  decide,
  listMatches,
  markSeen,
  report,
  setFavorite,
  unmatch,
  viewOf,
  visibleMatch,
} from './match.service';

/**
 * Matches (docs/matches.md). Policy: only a party of a match sees or changes it; to anyone else it
 * does not exist (404). A like is made only by its caller, for their own side.
 */
export function matchesRoutes(deps: AppDeps): Router {
  const router = Router();
  // Everything below runs after the change is committed (each statement autocommits or the
  // transaction in decide() has ended), so listeners never see state the database does not have.
  const badges = (...userIds: number[]) => void pushBadges(deps, userIds);
  const removed = (userIds: number[], matchId: number, intent: Intent) =>
    deps.emitter.to(userIds.map((id) => rooms.user(id))).emit('match:removed', { matchId, intent });

  // Owner only.
  mount(router, api.listMatches, async ({ params, query, auth, req }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only see your own matches.');
    const [user] = (await req.em.execute('select intent from users where id = ?', [params.userId])) as {
      intent: Intent;
    }[];
    if (!user) throw notFound('User not found.');
    return listMatches(req.em, params.userId, query.intent ?? user.intent);
  });

  // Owner of the path, and a party of the match.
  mount(router, api.getUserMatch, async ({ params, auth, req }) => {
    if (!userPolicy.isOwner(auth, params.userId)) throw forbidden('You can only see your own matches.');
    return viewOf(req.em, await visibleMatch(req.em, params.matchId, auth.userId), auth.userId);
  });

  // A party of the match.
  mount(router, api.getMatch, async ({ params, auth, req }) =>
    viewOf(req.em, await visibleMatch(req.em, params.matchId, auth.userId), auth.userId),
  );

  // The caller is user1Id and sets only their own flag; the server orders the pair and scores it.
  mount(router, api.createMatch, async ({ body, auth, req }) => {
    if (body.user1Id !== auth.userId) throw forbidden('You can only like or pass as yourself.');
    if (body.user2Id === auth.userId) throw badRequest('You cannot like or pass yourself.');
    const result = await decide(req.em, auth.userId, body.user2Id, body.intent, body.user1Liked);
    const view = await viewOf(req.em, result.row, auth.userId);
    if (result.becameMutual) {
      deps.emitter.to(rooms.user(auth.userId)).emit('match:new', view);
      deps.emitter.to(rooms.user(result.otherId)).emit('match:new', await viewOf(req.em, result.row, result.otherId));
    }
    badges(auth.userId, ...(result.becameMutual ? [result.otherId] : []));
    return view;
  });

  // A party of the match; the flag is the caller's own.
  mount(router, api.updateMatch, async ({ params, body, auth, req }) => {
    const row = await visibleMatch(req.em, params.matchId, auth.userId);
    if (row.unmatched_at != null) throw notFound('Match not found.');
    return viewOf(req.em, await setFavorite(req.em, row, auth.userId, body.isFavorite), auth.userId);
  });

  // A party of the match; clears the caller's unread badge for it.
  mount(router, api.markMatchSeen, async ({ params, auth, req }) => {
    const row = await visibleMatch(req.em, params.matchId, auth.userId);
    const view: MatchView = await viewOf(req.em, await markSeen(req.em, row, auth.userId), auth.userId);
    badges(auth.userId);
    return view;
  });

  // A party of the match; ends it for both.
  mount(router, api.unmatch, async ({ params, auth, req }) => {
    const row = await visibleMatch(req.em, params.matchId, auth.userId);
    const updated = await unmatch(req.em, row);
    const parties = [updated.user1_id as number, updated.user2_id as number];
    removed(parties, updated.id as number, updated.intent as Intent);
    badges(...parties);
    return { ok: true as const };
  });

  // Anyone signed in may block anyone else (themselves excepted).
  mount(router, api.blockUser, async ({ body, auth, req }) => {
    if (body.userId === auth.userId) throw badRequest('You cannot block yourself.');
    const hidden = await block(req.em, auth.userId, body.userId);
    for (const row of hidden) removed([auth.userId, body.userId], row.id as number, row.intent as Intent);
    badges(auth.userId, body.userId);
    return { ok: true as const };
  });

  // Anyone signed in may report anyone else; a given matchId must be a match of exactly these two.
  mount(router, api.reportUser, async ({ body, auth, req }) => {
    if (body.reportedId === auth.userId) throw badRequest('You cannot report yourself.');
    await report(req.em, auth.userId, body);
    return { ok: true as const };
  });

  return router;
}
