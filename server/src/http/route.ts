import { ACCESS_BODY, type Endpoint } from '@shared/api';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { type Granted, rules } from './access';
import { badRequest, unauthorized } from './errors';
import { describeIssue, humanMessage } from './validation-messages';

export type HandlerContext<E extends Endpoint> = {
  params: z.output<E['params']>;
  query: z.output<E['query']>;
  body: z.output<E['body']>;
  req: Request;
  res: Response;
} & Granted[E['access']];

type Handler<E extends Endpoint> = (ctx: HandlerContext<E>) => Promise<z.input<E['response']>>;

/**
 * Validates one part of a request (or a socket payload); 400 whose message is a sentence for people
 * about the first failing field ("Usernames can be at most 40 characters.", validation-messages.ts),
 * with every failing field's path (e.g. `body.username`) and message in `issues`.
 */
export function parsePart<S extends z.ZodType>(schema: S, value: unknown, part: string): z.output<S> {
  const result = schema.safeParse(value ?? {}, { error: describeIssue });
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: [part, ...issue.path.map(String)].join('.'),
    message: humanMessage(issue),
  }));
  throw badRequest(issues[0]?.message ?? 'Please check what you entered and try again.', issues);
}

/**
 * Mounts one shared endpoint definition, in this order: sign-in (401), path and query validation
 * (400), the endpoint's access rule (403/404, http/access.ts), then `before` middleware (e.g. a
 * multipart parser, so nobody uploads into someone else's account), body validation (400), the
 * handler, and the response schema, which strips any field the contract does not name. A rule
 * that reads the body (ACCESS_BODY, e.g. `matchSender`) gets it validated first: sign-in, path,
 * query, body (400), then the rule.
 */
export function mount<E extends Endpoint>(
  router: Router,
  endpoint: E,
  handler: Handler<E>,
  before: RequestHandler[] = [],
): void {
  const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const rule = rules[endpoint.access] as (
    req: Request,
    parts: { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> },
  ) => Promise<object>;
  const ruleReadsBody = ACCESS_BODY[endpoint.access].length > 0;
  const readBody = (req: Request) => parsePart(endpoint.body, endpoint.method === 'GET' ? {} : req.body, 'body');

  const authorize = async (req: Request, res: Response, next: NextFunction) => {
    if (endpoint.access !== 'public' && !req.auth) throw unauthorized();
    const params = parsePart(endpoint.params, req.params, 'params') as Record<string, unknown>;
    const query = parsePart(endpoint.query, req.query, 'query') as Record<string, unknown>;
    const body = ruleReadsBody ? (readBody(req) as Record<string, unknown>) : undefined;
    const granted = await rule(req, { params, query, body: body ?? {} });
    res.locals.checked = { params, query, body, granted };
    next();
  };

  router[method](endpoint.path, authorize, ...before, async (req: Request, res: Response) => {
    const { params, query, granted } = res.locals.checked;
    const body = res.locals.checked.body ?? readBody(req);
    const ctx = { params, query, body, req, res, ...granted } as HandlerContext<E>;
    const result = await handler(ctx);
    // Only a request that succeeded tells anyone (a thrown error skips this: nothing is published).
    await req.effects.publish();
    if (res.headersSent) return;
    res.status(endpoint.status).json(endpoint.response.parse(result));
  });
}
