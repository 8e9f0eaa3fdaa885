import { BadgeCountsSchema } from '../events';
import { OkResponseSchema } from '../schemas/auth';
import {
  BlockBodySchema,
  CreateMatchBodySchema,
  CreateMatchResponseSchema,
  MatchesQuerySchema,
  MatchIdParamsSchema,
  MatchListSchema,
  MatchViewSchema,
  ReportBodySchema,
  UndoPassBodySchema,
  UpdateMatchBodySchema,
  UserMatchParamsSchema,
} from '../schemas/matches';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

export const matchesApi = {
  listMatches: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/matches',
    access: 'owner',
    params: UserIdParams,
    query: MatchesQuerySchema,
    response: MatchListSchema,
  }),
  /** The navigation badges, as 'badges:update' pushes them: read when the socket is down (polling fallback). */
  badges: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/badges',
    access: 'owner',
    params: UserIdParams,
    response: BadgeCountsSchema,
  }),
  getUserMatch: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/matches/:matchId',
    access: 'matchParty',
    params: UserMatchParamsSchema,
    response: MatchViewSchema,
  }),
  getMatch: defineEndpoint({
    method: 'GET',
    path: '/api/matches/:matchId',
    access: 'matchParty',
    params: MatchIdParamsSchema,
    response: MatchViewSchema,
  }),
  /** A like or pass by the caller (body user1Id must be the caller). */
  createMatch: defineEndpoint({
    method: 'POST',
    path: '/api/matches',
    access: 'decisionTarget',
    rateLimit: { name: 'swipes' },
    body: CreateMatchBodySchema,
    response: CreateMatchResponseSchema,
  }),
  /**
   * Takes back the caller's own most recent pass (on body.userId in body.intent), within
   * UNDO_PASS_SERVER_WINDOW_SECONDS: the person returns to the caller's feed. Anything else (a like,
   * an older pass, someone else's) is 404.
   */
  undoPass: defineEndpoint({
    method: 'POST',
    path: '/api/matches/undo-pass',
    access: 'user',
    rateLimit: { name: 'swipes' },
    body: UndoPassBodySchema,
    response: OkResponseSchema,
  }),
  updateMatch: defineEndpoint({
    method: 'PUT',
    path: '/api/matches/:matchId',
    access: 'matchParty',
    params: MatchIdParamsSchema,
    body: UpdateMatchBodySchema,
    response: MatchViewSchema,
  }),
  markMatchSeen: defineEndpoint({
    method: 'POST',
    path: '/api/matches/:matchId/seen',
    access: 'matchParty',
    params: MatchIdParamsSchema,
    response: MatchViewSchema,
  }),
  unmatch: defineEndpoint({
    method: 'DELETE',
    path: '/api/matches/:matchId',
    access: 'matchParty',
    params: MatchIdParamsSchema,
    response: OkResponseSchema,
  }),
  blockUser: defineEndpoint({
    method: 'POST',
    path: '/api/blocks',
    access: 'user',
    body: BlockBodySchema,
    response: OkResponseSchema,
  }),
  reportUser: defineEndpoint({
    method: 'POST',
    path: '/api/reports',
    access: 'reportTarget',
    rateLimit: { name: 'reports' },
    body: ReportBodySchema,
    response: OkResponseSchema,
    status: 201,
  }),
} as const;
