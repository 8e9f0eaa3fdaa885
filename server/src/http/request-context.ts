import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import { type EffectSinks, Effects } from '../core/realtime/effects';

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
      /**
       * What this request changes for others (socket events, badges, staged jobs), carried out by
       * mount() once the handler succeeded, never for a request that failed (core/realtime/effects.ts).
       */
      effects: Effects;
    }
  }
}

/** Gives each request its own identity map and unit of work, before authentication runs. */
export function requestContext(orm: MikroORM, sinks: EffectSinks): RequestHandler {
  return (req, _res, next) => {
    const em = orm.em.fork();
    req.em = em;
    req.effects = new Effects(sinks);
    RequestContext.create(em, next);
  };
}
