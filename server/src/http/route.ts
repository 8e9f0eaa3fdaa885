import type { Endpoint } from '@shared/api';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { badRequest, unauthorized } from './errors';
import type { AuthContext } from './request-context';

export interface HandlerContext<E extends Endpoint> {
  params: z.output<E['params']>;
  query: z.output<E['query']>;
  body: z.output<E['body']>;
  req: Request;
  res: Response;
}

export interface AuthedContext<E extends Endpoint> extends HandlerContext<E> {
  auth: AuthContext;
}

type Handler<E extends Endpoint> = (
  ctx: E['access'] extends 'user' ? AuthedContext<E> : HandlerContext<E> & { auth?: AuthContext },
) => Promise<z.input<E['response']>>;

function parsePart<S extends z.ZodType>(schema: S, value: unknown, part: string): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
  const first = issues[0];
  throw badRequest(first ? `Invalid ${first.path}: ${first.message}` : `Invalid ${part}.`, issues);
}

/**
 * Mounts one shared endpoint definition: checks access, validates params, query and body with its
 * schemas, and sends the handler's result through the response schema, which strips any field the
 * contract does not name.
 */
export function mount<E extends Endpoint>(
  router: Router,
  endpoint: E,
  handler: Handler<E>,
  /** Middleware run after the access check and before validation, e.g. a multipart parser. */
  before: RequestHandler[] = [],
): void {
  const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const checkAccess: RequestHandler = (req, _res, next) => {
    if (endpoint.access === 'user' && !req.auth) throw unauthorized();
    next();
  };
  router[method](endpoint.path, checkAccess, ...before, async (req: Request, res: Response) => {
    const ctx = {
      params: parsePart(endpoint.params, req.params, 'params'),
      query: parsePart(endpoint.query, req.query, 'query'),
      body: parsePart(endpoint.body, endpoint.method === 'GET' ? {} : req.body, 'body'),
      auth: req.auth,
      req,
      res,
    };
    const result = await handler(ctx as Parameters<Handler<E>>[0]);
    if (res.headersSent) return;
    res.status(endpoint.status).json(endpoint.response.parse(result));
  });
}
