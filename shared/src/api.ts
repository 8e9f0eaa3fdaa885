import { z } from 'zod';
import { DevLoginBodySchema, LoginResponseSchema, OkResponseSchema } from './schemas/auth';
import { IdSchema } from './schemas/common';
import { FeedCountsSchema, FeedQuerySchema, FeedResponseSchema } from './schemas/feed';
import { HealthResponseSchema } from './schemas/health';
import { JobAcceptedSchema } from './schemas/jobs';
import {
  BlockBodySchema,
  CreateMatchBodySchema,
  CreateMatchResponseSchema,
  MatchesQuerySchema,
  MatchIdParamsSchema,
  MatchListSchema,
  MatchViewSchema,
  ReportBodySchema,
  UpdateMatchBodySchema,
  UserMatchParamsSchema,
} from './schemas/matches';
import {
  AddUserPodcastBodySchema,
  OpmlImportResultSchema,
  PodcastSearchQuerySchema,
  PodcastSearchResultSchema,
  UpdateUserPodcastBodySchema,
  UserPodcastEntrySchema,
  UserPodcastListSchema,
} from './schemas/podcasts';
import { SpotifyConnectTicketSchema, SpotifyExchangeBodySchema, SpotifyStatusSchema } from './schemas/spotify';
import { SelfUserSchema, UpdateUserBodySchema, UserResponseSchema } from './schemas/user';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call an endpoint. 'public': anyone; 'user': any signed-in user (the handler's policy
 * then decides per object, e.g. owner only).
 */
export type Access = 'public' | 'user';

export interface Endpoint<
  A extends Access = Access,
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  method: HttpMethod;
  path: string;
  access: A;
  params: P;
  query: Q;
  body: B;
  response: R;
  /** HTTP status of a successful answer. */
  status: number;
}

/** No fields allowed (bodies, params): an unexpected field is a 400, never silently applied. */
const none = z.object({}).strict();
/** Query strings often carry harmless extras (cache busters); unknown keys are dropped. */
const noQuery = z.object({});

export function defineEndpoint<
  A extends Access,
  P extends z.ZodType = typeof none,
  Q extends z.ZodType = typeof noQuery,
  B extends z.ZodType = typeof none,
  R extends z.ZodType = z.ZodType,
>(def: {
  method: HttpMethod;
  path: string;
  access: A;
  params?: P;
  query?: Q;
  body?: B;
  response: R;
  status?: number;
}): Endpoint<A, P, Q, B, R> {
  return {
    ...def,
    params: (def.params ?? none) as P,
    query: (def.query ?? noQuery) as Q,
    body: (def.body ?? none) as B,
    status: def.status ?? 200,
  };
}

export type ParamsOf<E extends Endpoint> = z.input<E['params']>;
export type QueryOf<E extends Endpoint> = z.input<E['query']>;
export type BodyOf<E extends Endpoint> = z.input<E['body']>;
export type ResponseOf<E extends Endpoint> = z.output<E['response']>;

/** Fills `:name` segments of an endpoint path and appends the query string. */
export function buildPath(
  path: string,
  params: Record<string, string | number> = {},
  query: Record<string, string | number | boolean | undefined> = {},
): string {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`Missing path parameter "${name}" for ${path}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.set(key, String(value));
  }
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

const UserIdParams = z.strictObject({ userId: IdSchema });
const EntryIdParams = z.strictObject({ id: IdSchema });

export const api = {
  health: defineEndpoint({ method: 'GET', path: '/api/health', access: 'public', response: HealthResponseSchema }),
  devLogin: defineEndpoint({
    method: 'POST',
    path: '/api/auth/dev-login',
    access: 'public',
    body: DevLoginBodySchema,
    response: LoginResponseSchema,
  }),
  logout: defineEndpoint({ method: 'POST', path: '/api/auth/logout', access: 'user', response: OkResponseSchema }),
  getUser: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId',
    access: 'user',
    params: UserIdParams,
    response: UserResponseSchema,
  }),
  updateUser: defineEndpoint({
    method: 'PUT',
    path: '/api/users/:userId',
    access: 'user',
    params: UserIdParams,
    body: UpdateUserBodySchema,
    response: SelfUserSchema,
  }),
  feed: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/feed',
    access: 'user',
    params: UserIdParams,
    query: FeedQuerySchema,
    response: FeedResponseSchema,
  }),
  feedCounts: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/feed-counts',
    access: 'user',
    params: UserIdParams,
    response: FeedCountsSchema,
  }),
  listMatches: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/matches',
    access: 'user',
    params: UserIdParams,
    query: MatchesQuerySchema,
    response: MatchListSchema,
  }),
  getUserMatch: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/matches/:matchId',
    access: 'user',
    params: UserMatchParamsSchema,
    response: MatchViewSchema,
  }),
  getMatch: defineEndpoint({
    method: 'GET',
    path: '/api/matches/:matchId',
    access: 'user',
    params: MatchIdParamsSchema,
    response: MatchViewSchema,
  }),
  createMatch: defineEndpoint({
    method: 'POST',
    path: '/api/matches',
    access: 'user',
    body: CreateMatchBodySchema,
    response: CreateMatchResponseSchema,
  }),
  updateMatch: defineEndpoint({
    method: 'PUT',
    path: '/api/matches/:matchId',
    access: 'user',
    params: MatchIdParamsSchema,
    body: UpdateMatchBodySchema,
    response: MatchViewSchema,
  }),
  markMatchSeen: defineEndpoint({
    method: 'POST',
    path: '/api/matches/:matchId/seen',
    access: 'user',
    params: MatchIdParamsSchema,
    response: MatchViewSchema,
  }),
  unmatch: defineEndpoint({
    method: 'DELETE',
    path: '/api/matches/:matchId',
    access: 'user',
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
    access: 'user',
    body: ReportBodySchema,
    response: OkResponseSchema,
    status: 201,
  }),
  generateAvatar: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/generated-avatar',
    access: 'user',
    params: UserIdParams,
    response: JobAcceptedSchema,
    status: 202,
  }),
  listUserPodcasts: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/podcasts',
    access: 'user',
    params: UserIdParams,
    response: UserPodcastListSchema,
  }),
  addUserPodcast: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/podcasts',
    access: 'user',
    params: UserIdParams,
    body: AddUserPodcastBodySchema,
    response: UserPodcastEntrySchema,
    status: 201,
  }),
  importOpml: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/podcasts/opml',
    access: 'user',
    params: UserIdParams,
    // multipart/form-data with one file field `opml`
    response: OpmlImportResultSchema,
    status: 202,
  }),
  updateUserPodcast: defineEndpoint({
    method: 'PUT',
    path: '/api/user-podcasts/:id',
    access: 'user',
    params: EntryIdParams,
    body: UpdateUserPodcastBodySchema,
    response: UserPodcastEntrySchema,
  }),
  removeUserPodcast: defineEndpoint({
    method: 'DELETE',
    path: '/api/user-podcasts/:id',
    access: 'user',
    params: EntryIdParams,
    response: OkResponseSchema,
  }),
  searchPodcasts: defineEndpoint({
    method: 'GET',
    path: '/api/podcasts/search',
    access: 'user',
    query: PodcastSearchQuerySchema,
    response: PodcastSearchResultSchema,
  }),
  spotifyStatus: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/spotify',
    access: 'user',
    params: UserIdParams,
    response: SpotifyStatusSchema,
  }),
  spotifySync: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/spotify/sync',
    access: 'user',
    params: UserIdParams,
    response: JobAcceptedSchema,
    status: 202,
  }),
  spotifyDisconnect: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/spotify',
    access: 'user',
    params: UserIdParams,
    response: OkResponseSchema,
  }),
  /** A one-time URL to navigate to (GET /api/spotify/login?ticket=...) to connect the signed-in user. */
  spotifyConnectTicket: defineEndpoint({
    method: 'POST',
    path: '/api/spotify/connect-ticket',
    access: 'user',
    response: SpotifyConnectTicketSchema,
  }),
  /** Trades the one-time code of `/login?spotify_code=` (after signing in through Spotify) for a session. */
  spotifyExchange: defineEndpoint({
    method: 'POST',
    path: '/api/auth/spotify/exchange',
    access: 'public',
    body: SpotifyExchangeBodySchema,
    response: LoginResponseSchema,
  }),
} as const;

export type Api = typeof api;
