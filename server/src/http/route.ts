import { ACCESS_BODY, type Endpoint, type EndpointRateLimit } from '@shared/api';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { type Granted, rules } from './access';
import { badRequest, unauthorized } from './errors';
import { clientAddress, emailAllowanceKey, type RateLimits } from './rate-limits';
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

/** Marks the handlers mount() registers, so the app can prove that no route bypassed the contract. */
const MOUNTED = Symbol('mounted by mount()');

/**
 * Mounts one shared endpoint definition, in this order: the endpoint's rate limit (429; before
 * anything else, so a flood costs one Redis call a request), sign-in (401), path and query
 * validation (400), the endpoint's access rule (403/404, http/access.ts), then `before` middleware
 * (a multipart endpoint's upload parser, so nobody uploads into someone else's account), body
 * validation (400), the handler, the request's side effects (req.effects), and the answer by the
 * endpoint's kind: json through the response schema (which strips any field the contract does not
 * name), a redirect to the location the handler returned, or the bytes a binary handler wrote
 * itself. A rule that reads the body (ACCESS_BODY, e.g. `matchSender`) gets it validated first.
 */
export function mount<E extends Endpoint>(
  router: Router,
  endpoint: E,
  handler: Handler<E>,
  before: RequestHandler[] = [],
): void {
  if ((endpoint.kind === 'multipart') !== before.length > 0) {
    throw new Error(`${endpoint.method} ${endpoint.path}: a multipart endpoint, and only it, has an upload parser`);
  }
  const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const rule = rules[endpoint.access] as (
    req: Request,
    parts: { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> },
  ) => Promise<object>;
  const ruleReadsBody = ACCESS_BODY[endpoint.access].length > 0;
  const readBody = (req: Request) => parsePart(endpoint.body, endpoint.method === 'GET' ? {} : req.body, 'body');

  // Moderation routes do not exist for anyone without the role: their rule answers first, before a
  // missing sign-in (401) or a malformed parameter (400) could tell that the route is there.
  const hidden = endpoint.access === 'moderator' || endpoint.access === 'admin';

  const authorize = async (req: Request, res: Response, next: NextFunction) => {
    // The route's template labels its request metrics (http/request-context.ts).
    res.locals.route = endpoint.path;
    if (endpoint.rateLimit) await takeRateLimit(req, endpoint.rateLimit);
    const roleHeld = hidden ? await rule(req, { params: {}, query: {}, body: {} }) : undefined;
    if (endpoint.access !== 'public' && !req.auth) throw unauthorized();
    const params = parsePart(endpoint.params, req.params, 'params') as Record<string, unknown>;
    const query = parsePart(endpoint.query, req.query, 'query') as Record<string, unknown>;
    const body = ruleReadsBody ? (readBody(req) as Record<string, unknown>) : undefined;
    const granted = roleHeld ?? (await rule(req, { params, query, body: body ?? {} }));
    res.locals.checked = { params, query, body, granted };
    next();
  };

  const answer = async (req: Request, res: Response) => {
    const { params, query, granted } = res.locals.checked;
    const body = res.locals.checked.body ?? readBody(req);
    const ctx = { params, query, body, req, res, ...granted } as HandlerContext<E>;
    const result = await handler(ctx);
    // Only a request that succeeded tells anyone (a thrown error skips this: nothing is published).
    await req.effects.publish();
    if (endpoint.kind === 'binary') {
      if (!res.headersSent) throw new Error(`${endpoint.method} ${endpoint.path}: the handler wrote no answer`);
      return;
    }
    if (res.headersSent) return;
    const parsed = endpoint.response.parse(result);
    if (endpoint.kind === 'redirect') res.redirect(endpoint.status, (parsed as { location: string }).location);
    // A handler may answer another status of its own (health: 503 while a part is down).
    else res.status(res.statusCode !== 200 ? res.statusCode : endpoint.status).json(parsed);
  };
  (answer as { [MOUNTED]?: true })[MOUNTED] = true;
  router[method](endpoint.path, authorize, ...before, answer);
}

/** The endpoint's rate limit for this caller (the person, or the account name tried) and address. */
async function takeRateLimit(req: Request, limit: EndpointRateLimit): Promise<void> {
  const limits = req.app.locals.limits as RateLimits | undefined;
  if (!limits) throw new Error('app.locals.limits is not set (createApp sets it)');
  await limits.take(limit.name, {
    user: limit.per === 'accountName' ? accountNameTried(req) : req.auth?.userId,
    ip: clientAddress(req),
  });
}

/**
 * Sign-in is limited per account name tried (a username, or the email address a code goes to), so
 * one account cannot be hammered from many addresses.
 */
function accountNameTried(req: Request): string | undefined {
  const body = req.body as { username?: unknown; email?: unknown } | undefined;
  if (typeof body?.email === 'string') return emailAllowanceKey(body.email);
  const name = body?.username;
  return typeof name === 'string' ? `name:${name.trim().toLowerCase().slice(0, 100)}` : undefined;
}

interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
  handle?: { stack?: RouterLayer[] };
}

/**
 * Every route of the app was mounted from a shared endpoint definition (mount()), or the app does
 * not start: a route outside the contract would also be outside the authorization matrix.
 */
export function assertRoutesInContract(stack: RouterLayer[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const last = layer.route.stack.at(-1)?.handle as { [MOUNTED]?: true } | undefined;
      if (!last?.[MOUNTED]) {
        const methods = Object.keys(layer.route.methods).join(',').toUpperCase();
        throw new Error(
          `${methods} ${layer.route.path} is mounted outside the contract: define it in shared/src/api and mount() it`,
        );
      }
    } else if (layer.handle?.stack) assertRoutesInContract(layer.handle.stack);
  }
}
