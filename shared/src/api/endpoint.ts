import { z } from 'zod';
import type { RateLimitName } from '../rate-limits';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What an endpoint takes and answers:
 * - json: a JSON body in (when it has one), the response schema's JSON out;
 * - multipart: one file in a form field (`file`), the response schema's JSON out;
 * - redirect: a browser navigation answered with a redirect (the response schema is its location);
 * - binary: bytes the handler writes itself (an image), no JSON.
 */
export type EndpointKind = 'json' | 'multipart' | 'redirect' | 'binary';

/**
 * The rate limit taken before anything else of the request (docs/security.md): per signed-in person
 * and per client address; `per: 'accountName'` counts sign-ins per account name tried instead.
 */
export interface EndpointRateLimit {
  name: RateLimitName;
  per?: 'person' | 'accountName';
}

/** The answer of a redirect endpoint: where the browser goes next. */
export const RedirectSchema = z.object({ location: z.string().min(1) });
/** The answer of a binary endpoint: nothing for the contract to check (the handler wrote the bytes). */
export const BinarySchema = z.void();

/**
 * Who may call an endpoint, as data; the server enforces it before the handler runs
 * (server/src/http/access.ts) and the authorization matrix test is derived from it.
 * - public: anyone.
 * - user: anyone signed in.
 * - owner: the path's `:userId` is the caller (403 otherwise).
 * - viewer: the path's `:userId` is the caller, or someone the caller may see for the intent in
 *   view: in their feed or mutual matches, not blocked either way (404 otherwise).
 * - matchParty: the caller is one of the two people of the match `:matchId`, and the match is
 *   mutual, not unmatched and not blocked (404 otherwise, so nobody learns a like exists); where
 *   the path also names a `:userId`, it must be the caller (403).
 * - libraryEntryOwner: the podcast library entry `:id` is the caller's (404 otherwise).
 * - videoProjectOwner: the video project `:projectId` is the caller's (404 otherwise).
 * - matchSender: the body's `senderId` is the caller (403 otherwise) and its `matchId` is a match
 *   the caller may see under `matchParty` (404 otherwise). The body is validated before this rule.
 * - decisionTarget (a like or pass): the body's `user1Id` is the caller (403 otherwise) and its
 *   `user2Id` someone the caller may decide on in the body's `intent`: in their feed of that intent,
 *   or someone they already decided on there, a current match included (404 otherwise, the same
 *   answer as an unknown id). The body is validated before this rule.
 * - reportTarget (a report): the body's `reportedId` is someone the caller has come across: in their
 *   candidates (the feed, any intent), a match of theirs in any state, or someone they blocked (404
 *   otherwise), so nobody can report ids they never saw. The body is validated before this rule.
 * - moderator: the caller holds the moderator or admin role (docs/moderation.md); everyone else,
 *   signed in or not, gets the 404 of a route that does not exist.
 * - admin: the caller holds the admin role; everyone else gets that 404.
 */
export type Access =
  | 'public'
  | 'user'
  | 'owner'
  | 'viewer'
  | 'matchParty'
  | 'libraryEntryOwner'
  | 'videoProjectOwner'
  | 'matchSender'
  | 'decisionTarget'
  | 'reportTarget'
  | 'moderator'
  | 'admin';

/** The path parameter each access rule reads. */
export const ACCESS_PARAM = {
  public: null,
  user: null,
  owner: 'userId',
  viewer: 'userId',
  matchParty: 'matchId',
  libraryEntryOwner: 'id',
  videoProjectOwner: 'projectId',
  matchSender: null,
  decisionTarget: null,
  reportTarget: null,
  moderator: null,
  admin: null,
} as const satisfies Record<Access, string | null>;
type AccessParam = typeof ACCESS_PARAM;

/** The body fields each access rule reads (the body is then validated before the rule runs). */
export const ACCESS_BODY = {
  public: [],
  user: [],
  owner: [],
  viewer: [],
  matchParty: [],
  libraryEntryOwner: [],
  videoProjectOwner: [],
  matchSender: ['matchId', 'senderId'],
  decisionTarget: ['user1Id', 'user2Id', 'intent'],
  reportTarget: ['reportedId'],
  moderator: [],
  admin: [],
} as const satisfies Record<Access, readonly string[]>;
type AccessBody = typeof ACCESS_BODY;

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
  kind: EndpointKind;
  /** multipart: the form field carrying the file. */
  file?: string;
  rateLimit?: EndpointRateLimit;
  params: P;
  query: Q;
  body: B;
  response: R;
  /** HTTP status of a successful answer (302 for a redirect). */
  status: number;
}

/** No fields allowed (bodies, params): an unexpected field is a 400, never silently applied. */
const none = z.object({}).strict();
/** Query strings often carry harmless extras (cache busters); unknown keys are dropped. */
const noQuery = z.object({});

/** A compile error unless the params schema has the path parameter the access rule reads. */
type ParamsFit<A extends Access, P extends z.ZodType> = AccessParam[A] extends null
  ? unknown
  : AccessParam[A] extends keyof z.output<P>
    ? unknown
    : { params: `access '${A}' needs the path parameter :${NonNullable<AccessParam[A]>}` };

/** A compile error unless the body schema has the fields the access rule reads. */
type BodyFit<A extends Access, B extends z.ZodType> = AccessBody[A][number] extends keyof z.output<B>
  ? unknown
  : { body: `access '${A}' needs the body fields ${AccessBody[A][number]}` };

export function defineEndpoint<
  A extends Access,
  P extends z.ZodType = typeof none,
  Q extends z.ZodType = typeof noQuery,
  B extends z.ZodType = typeof none,
  R extends z.ZodType = z.ZodType,
>(
  def: {
    method: HttpMethod;
    path: string;
    /** Required: an endpoint without an access rule does not compile. */
    access: A;
    kind?: EndpointKind;
    file?: string;
    rateLimit?: EndpointRateLimit;
    params?: P;
    query?: Q;
    body?: B;
    response: R;
    status?: number;
  } & ParamsFit<A, P> &
    BodyFit<A, B>,
): Endpoint<A, P, Q, B, R> {
  const param = ACCESS_PARAM[def.access];
  if (param && !def.path.includes(`:${param}`)) {
    throw new Error(`${def.method} ${def.path}: access '${def.access}' needs the path parameter :${param}`);
  }
  const kind = def.kind ?? 'json';
  if ((kind === 'multipart') !== (def.file !== undefined)) {
    throw new Error(`${def.method} ${def.path}: a multipart endpoint names its file field, and only it`);
  }
  return {
    method: def.method,
    path: def.path,
    access: def.access,
    kind,
    ...(def.file ? { file: def.file } : {}),
    ...(def.rateLimit ? { rateLimit: def.rateLimit } : {}),
    response: def.response,
    params: (def.params ?? none) as P,
    query: (def.query ?? noQuery) as Q,
    body: (def.body ?? none) as B,
    status: def.status ?? (kind === 'redirect' ? 302 : 200),
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
