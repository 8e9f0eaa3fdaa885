import type { EntityManager } from '@mikro-orm/postgresql';
import { NEW_TOKEN_HEADER } from '@shared/index';
import type { RequestHandler } from 'express';
import type { Session } from '../core/db/entities';
import { addLogFields, redactInLogs } from '../core/logger';

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1] ?? null;
}

/** What authentication needs of the sessions (features/auth/session.service.ts provides it). */
export interface SessionResolver {
  resolve(em: EntityManager, token: string): Promise<Session | null>;
  rotateIfDue(em: EntityManager, session: Session, userAgent?: string): Promise<string | null>;
}

/**
 * Reads the bearer token, if any, and sets req.auth. A bad or missing token is not an error here:
 * each endpoint's access rule decides. Rotated tokens go back in the X-New-Token header.
 */
export function authenticate(sessions: SessionResolver): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.get('authorization'));
    if (!token) return next();
    const session = await sessions.resolve(req.em, token);
    if (!session) return next();
    req.auth = { userId: session.userId, sessionId: session.id };
    addLogFields({ userId: session.userId });
    const fresh = await sessions.rotateIfDue(req.em, session, req.get('user-agent'));
    redactInLogs(fresh ?? undefined);
    if (fresh) res.setHeader(NEW_TOKEN_HEADER, fresh);
    next();
  };
}
