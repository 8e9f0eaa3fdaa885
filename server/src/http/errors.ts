/** An error with an HTTP status and a message safe to show to the caller. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues?: { path: string; message: string }[],
    /** Response headers that belong to the answer (e.g. Retry-After of a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  /** More fields of the error body, for a refusal the client acts on (a suspended sign-in's statement). */
  readonly details?: object;
}

export const badRequest = (message: string, issues?: { path: string; message: string }[]) =>
  new HttpError(400, 'bad_request', message, issues);
export const unauthorized = (message = 'Sign in to continue.') => new HttpError(401, 'unauthorized', message);
export const forbidden = (message = 'You may not do that.') => new HttpError(403, 'forbidden', message);
export const notFound = (message = 'Not found.') => new HttpError(404, 'not_found', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(429, 'rate_limited', message, undefined, { 'Retry-After': String(Math.max(1, retryAfterSeconds)) });
