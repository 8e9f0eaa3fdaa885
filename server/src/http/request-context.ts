import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';

export interface AuthContext {
  userId: number;
  sessionId: number;
}

declare global {
  namespace Express {
    interface Request {
      /** This request's own EntityManager fork. */
      em: EntityManager;
      /** Set by `authenticate` when a valid bearer token came with the request. */
      auth?: AuthContext;
    }
  }
}

/** Gives each request its own identity map, before authentication runs. */
export function requestContext(orm: MikroORM): RequestHandler {
  return (req, _res, next) => {
    const em = orm.em.fork();
    req.em = em;
    RequestContext.create(em, next);
  };
}
