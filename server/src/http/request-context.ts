import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/postgresql';
import type { RequestHandler } from 'express';
import { inLogScope, type Logger, secretsOf, withLogFields } from '../core/logger';
import type { ServerMetrics } from '../core/metrics/metrics';
import { type EffectSinks, Effects } from '../core/realtime/effects';

export interface AuthContext {
  userId: number;
  sessionId: number;
}

declare global {
  namespace Express {
    interface Request {
      /** This request's id: its X-Request-Id response header, and the `requestId` of its log lines. */
      id: string;
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

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * A request's route for metrics: the contract's path template mount() recorded (never an id, so the
 * series stay few); otherwise what kind of path it was.
 */
function routeTemplate(path: string, mounted: unknown): string {
  if (typeof mounted === 'string') return mounted;
  if (path.startsWith('/api/')) return 'unmatched';
  if (path.startsWith('/media/')) return '/media';
  return path.startsWith('/socket.io/') ? '/socket.io' : 'client';
}
/** A request id a proxy may hand us: short, and nothing a log reader could mistake for more (a UUID, HAProxy's). */
const SAFE_REQUEST_ID = /^[\w.:-]{8,64}$/;

/**
 * First of all: gives the request its id (answered in X-Request-Id) and opens its log scope, so
 * every line written while it is handled carries the id (and the user id once `authenticate` knows
 * it) and none carries its token, cookies or secret parameters. One line per request once it is
 * answered: info for the API, debug for the health probe, static files and media.
 */
export function requestLogging(
  logger: Logger,
  /** Express's compiled TRUST_PROXY ('trust proxy fn'): only such a proxy may name the request. */
  trustProxy: (address: string, hop: number) => boolean,
  metrics?: Pick<ServerMetrics, 'request'>,
): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const offered = req.get(REQUEST_ID_HEADER);
    // A client could send any id (another request's, to muddle the logs): only the proxy in front's counts.
    const fromProxy =
      offered !== undefined && SAFE_REQUEST_ID.test(offered) && trustProxy(req.socket.remoteAddress ?? '', 0);
    req.id = fromProxy ? offered : randomUUID();
    res.setHeader(REQUEST_ID_HEADER, req.id);
    withLogFields(
      { requestId: req.id },
      () => {
        res.once(
          'close',
          inLogScope(() => {
            const path = req.originalUrl.split('?')[0] ?? '';
            const durationMs = Math.round(performance.now() - started);
            // Not answered in full: the client went away (or the server closed the connection).
            const aborted = !res.writableFinished;
            // Health checks come every few seconds from each load balancer and container runtime.
            const api = path.startsWith('/api/') && !path.startsWith('/api/health');
            metrics?.request(req.method, routeTemplate(path, res.locals.route), res.statusCode, durationMs / 1000);
            logger[api ? 'info' : 'debug'](
              `${req.method} ${path} ${aborted ? 'aborted' : res.statusCode} ${durationMs} ms`,
              { method: req.method, path, status: res.statusCode, durationMs, ...(aborted ? { aborted } : {}) },
            );
          }),
        );
        next();
      },
      () => secretsOf(req),
    );
  };
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
