// The access rules of shared/src/api/endpoint.ts, enforced by mount() before any handler runs.
// Each rule answers what it loaded on the way, so the handler does not load it again. What the
// rules look up lives in core/access, shared with the features (http/ imports no feature code).
import type { Access } from '@shared/api';
import { type Intent, type Role, VIDEO_TEXTS } from '@shared/index';
import type { Request } from 'express';
import {
  canSee,
  currentIntentOf,
  findOwnEntry,
  findProject,
  findVisibleMatch,
  hasComeAcross,
  mayDecideOn,
  roleOf,
  type VideoProjectRow,
} from '../core/access';
import type { MatchRecord } from '../core/matches/decide';
import type { LibraryRow } from '../core/presenters/podcast.presenter';
import { badRequest, forbidden, notFound, unauthorized } from './errors';
import type { AuthContext } from './request-context';

/** What each rule hands the handler. */
export interface Granted {
  public: { auth?: AuthContext };
  user: { auth: AuthContext };
  owner: { auth: AuthContext };
  /** `viewedIntent` is null when the caller looks at themself. */
  viewer: { auth: AuthContext; viewedIntent: Intent | null };
  matchParty: { auth: AuthContext; match: MatchRecord };
  libraryEntryOwner: { auth: AuthContext; entry: LibraryRow };
  videoProjectOwner: { auth: AuthContext; project: VideoProjectRow };
  /** The match named by the body's `matchId` (the body was validated before the rule). */
  matchSender: { auth: AuthContext; match: MatchRecord };
  decisionTarget: { auth: AuthContext };
  reportTarget: { auth: AuthContext };
  moderator: { auth: AuthContext; role: Role };
  admin: { auth: AuthContext; role: 'admin' };
}

interface Checked {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** The validated body, for the rules that read it (ACCESS_BODY); `{}` for the others. */
  body: Record<string, unknown>;
}

type Rule<A extends Access> = (req: Request, parts: Checked) => Promise<Granted[A]>;

const signedIn = (req: Request): AuthContext => {
  if (!req.auth) throw unauthorized();
  return req.auth;
};

/** A live mutual match of the caller's, else 404 (whatever the reason: see findVisibleMatch). */
const visibleMatch = async (req: Request, matchId: number, viewerId: number): Promise<MatchRecord> => {
  const match = await findVisibleMatch(req.em, matchId, viewerId);
  if (!match) throw notFound('Match not found.');
  return match;
};

/**
 * Moderation routes do not exist for anyone without the role: the same 404 as an unknown path
 * (http/error-handler.ts apiNotFound), signed in or not.
 */
const noSuchRoute = (req: Request) => notFound(`No such endpoint: ${req.method} ${req.path}`);

/** The path's user must be the caller: 403, since who the path names is no secret to its caller. */
const ownPath = (auth: AuthContext, params: Record<string, unknown>) => {
  if (params.userId !== undefined && params.userId !== auth.userId) {
    throw forbidden('You can only do this for your own account.');
  }
};

export const rules: { [A in Access]: Rule<A> } = {
  public: async (req) => ({ auth: req.auth }),
  user: async (req) => ({ auth: signedIn(req) }),
  owner: async (req, { params }) => {
    const auth = signedIn(req);
    ownPath(auth, params);
    return { auth };
  },
  viewer: async (req, { params, query }) => {
    const auth = signedIn(req);
    const userId = params.userId as number;
    if (userId === auth.userId) return { auth, viewedIntent: null };
    const intent = (query.intent as Intent | undefined) ?? (await currentIntentOf(req.em, auth.userId));
    if (!intent) throw notFound('User not found.');
    if (!(await canSee(req.em, auth.userId, userId, intent))) throw notFound('User not found.');
    return { auth, viewedIntent: intent };
  },
  matchParty: async (req, { params }) => {
    const auth = signedIn(req);
    ownPath(auth, params);
    return { auth, match: await visibleMatch(req, params.matchId as number, auth.userId) };
  },
  libraryEntryOwner: async (req, { params }) => {
    const auth = signedIn(req);
    const entry = await findOwnEntry(req.em, params.id as number, auth.userId);
    if (!entry) throw notFound('Podcast entry not found.');
    return { auth, entry };
  },
  videoProjectOwner: async (req, { params }) => {
    const auth = signedIn(req);
    const project = await findProject(req.em, params.projectId as string);
    if (!project || project.user_id !== auth.userId) throw notFound(VIDEO_TEXTS.notFound);
    return { auth, project };
  },
  matchSender: async (req, { body }) => {
    const auth = signedIn(req);
    if (body.senderId !== auth.userId) throw forbidden('You can only send messages as yourself.');
    return { auth, match: await visibleMatch(req, body.matchId as number, auth.userId) };
  },
  decisionTarget: async (req, { body }) => {
    const auth = signedIn(req);
    if (body.user1Id !== auth.userId) throw forbidden('You can only like or pass as yourself.');
    if (body.user2Id === auth.userId) throw badRequest('You cannot like or pass yourself.');
    if (!(await mayDecideOn(req.em, auth.userId, body.user2Id as number, body.intent as Intent))) {
      throw notFound('User not found.');
    }
    return { auth };
  },
  reportTarget: async (req, { body }) => {
    const auth = signedIn(req);
    if (body.reportedId === auth.userId) throw badRequest('You cannot report yourself.');
    if (!(await hasComeAcross(req.em, auth.userId, body.reportedId as number))) throw notFound('User not found.');
    return { auth };
  },
  moderator: async (req) => {
    const role = req.auth ? await roleOf(req.em, req.auth.userId) : null;
    if (!req.auth || !role) throw noSuchRoute(req);
    return { auth: req.auth, role };
  },
  admin: async (req) => {
    const role = req.auth ? await roleOf(req.em, req.auth.userId) : null;
    if (!req.auth || role !== 'admin') throw noSuchRoute(req);
    return { auth: req.auth, role };
  },
};
