import type { ErrorBody } from '@shared/index';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../core/logger';
import { PersonGoneError } from '../core/matches/decide';
import { HttpError } from './errors';

/** Unknown /api paths answer JSON, not the SPA. */
export const apiNotFound: RequestHandler = (req, res) => {
  const body: ErrorBody = { error: 'not_found', message: `No such endpoint: ${req.method} ${req.path}` };
  res.status(404).json(body);
};

/** The error code of a 503 for the database being away. */
export const DATABASE_UNAVAILABLE = 'service_unavailable';

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/**
 * Turns every error into a JSON answer. Caller mistakes get a 4xx with a message; anything else
 * is logged and answered with a generic 500 that never carries a stack trace.
 */
export function errorHandler(logger: Logger, databaseOutage?: { noticed(): void }): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const body = toErrorBody(error);
    // The path without its query (search words, OAuth codes); the request's id says which one it was.
    const path = req.originalUrl.split('?')[0];
    if (body.body.error === DATABASE_UNAVAILABLE) {
      logger.warn(`${req.method} ${path}: the database is unavailable`);
      databaseOutage?.noticed();
    } else if (body.status >= 500) logger.error(`${req.method} ${path} failed`, error);
    if (res.headersSent) return;
    if (error instanceof HttpError && error.headers) res.set(error.headers);
    if (body.headers) res.set(body.headers);
    res.status(body.status).json(body.body);
  };
}

export function toErrorBody(error: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: {
        ...error.details,
        error: error.code,
        message: error.message,
        ...(error.issues ? { issues: error.issues } : {}),
      },
    };
  }
  // A row this request refers to was deleted by a concurrent request (an account deletion racing a
  // like or a message): what it pointed at no longer exists.
  if (isForeignKeyViolation(error) || error instanceof PersonGoneError) {
    return { status: 404, body: { error: 'not_found', message: 'That no longer exists.' } };
  }
  // PostgreSQL restarting or unreachable: nothing was done, and trying again shortly will work.
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      headers: { 'Retry-After': '2' },
      body: {
        error: DATABASE_UNAVAILABLE,
        message: 'The service is briefly unavailable. Please try again in a moment.',
      },
    };
  }
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return { status: 400, body: { error: 'invalid_json', message: 'The request body is not valid JSON.' } };
    case 'entity.too.large':
      return {
        status: 413,
        body: { error: 'payload_too_large', message: `The request body is larger than ${parserError.limit} bytes.` },
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, body: { error: 'unsupported_encoding', message: 'Unsupported body encoding.' } };
    case 'request.aborted':
      return { status: 400, body: { error: 'aborted', message: 'The request was aborted.' } };
  }
  if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
    return { status: parserError.status, body: { error: 'bad_request', message: 'The request could not be read.' } };
  }
  return {
    status: 500,
    body: { error: 'internal_error', message: 'Something went wrong on our side. Please try again.' },
  };
}

/** PostgreSQL's foreign_key_violation, as the driver or MikroORM (which keeps the driver's code) reports it. */
function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code;
  return code === '23503';
}

const DATABASE_DOWN_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03']);
const DATABASE_DOWN_MESSAGES =
  /Connection terminated|Timeout acquiring a connection|terminating connection due to|the database system is (starting up|shutting down|in recovery mode)/;

/**
 * The database cannot be reached or is restarting (shutdown, crash recovery, class 08 connection
 * exceptions), as the driver, knex's pool or MikroORM (which keeps the cause) report it.
 */
function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    depth++
  ) {
    if (typeof e.code === 'string' && (DATABASE_DOWN_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && DATABASE_DOWN_MESSAGES.test(e.message)) return true;
    e = e.cause as typeof e;
  }
  return false;
}
