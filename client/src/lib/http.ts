import { NEW_TOKEN_HEADER } from '@shared/constants';
import type { ErrorBody } from '@shared/schemas/common';
import { noteNetworkAnswer, noteNetworkFailure } from './online';
import { readStoredToken, replaceToken } from './session';

// Kept free of zod and of the endpoint table on purpose: this module is part of the first load of
// /login, and the shared endpoint definitions bring all of zod with them (see api-client.ts).

/** A non-OK HTTP answer. The message is `${status}: ${body text or status text}` (SPEC section 8). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly bodyText: string,
    /** The body parsed as JSON, or undefined when it is not JSON. */
    readonly body: unknown,
  ) {
    super(`${status}: ${bodyText || statusText}`);
  }

  /** The human message of a JSON error body {error, message}, if the server sent one. */
  get serverMessage(): string | undefined {
    const body = this.body as Partial<ErrorBody> | undefined;
    return typeof body?.message === 'string' && body.message ? body.message : undefined;
  }
}

/** The server answered OK, but not with the shape the shared contract promises. */
export class InvalidResponseError extends Error {
  override readonly name = 'InvalidResponseError';
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    super('Invalid response from server');
  }
}

/** Input the client refused before sending it, with the sentence to show (the contract's own wording). */
export class InputProblem extends Error {
  override readonly name = 'InputProblem';
}

export type On401 = 'throw' | 'returnNull';

export interface FetchOptions {
  method?: string;
  /** A JSON body; only then is `Content-Type: application/json` sent. */
  json?: unknown;
  /** Any other body (FormData for uploads); the browser sets its content type. */
  body?: BodyInit;
  on401?: On401;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** The request outlives the page (a last report on pagehide); small bodies only. */
  keepalive?: boolean;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The one fetch wrapper: sends cookies and the bearer token, adopts a rotated token from
 * X-New-Token, and turns any non-OK answer into an ApiError. Resolves to the parsed JSON body
 * (undefined when empty), or null on 401 when `on401: 'returnNull'`.
 */
export async function apiFetch(url: string, options: FetchOptions = {}): Promise<unknown> {
  const headers = new Headers(options.headers);
  const token = readStoredToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let body = options.body;
  if (options.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(options.json);
  }

  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? 'GET',
      headers,
      body,
      credentials: 'include',
      signal: options.signal,
      ...(options.keepalive ? { keepalive: true } : {}),
    });
  } catch (error) {
    // A TypeError: the request never reached the server (an abort is a DOMException).
    if (error instanceof TypeError) noteNetworkFailure();
    throw error;
  }
  noteNetworkAnswer();

  const newToken = response.headers.get(NEW_TOKEN_HEADER);
  if (newToken) replaceToken(newToken);

  if (response.status === 401 && options.on401 === 'returnNull') return null;

  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, response.statusText, text, parseJson(text));
  return parseJson(text);
}

export function isApiError(error: unknown, status?: number): error is ApiError {
  return error instanceof ApiError && (status === undefined || error.status === status);
}

/** A user-facing message for an error from the api client: the server's message, else the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.serverMessage ?? fallback;
  if (error instanceof InvalidResponseError || error instanceof InputProblem) return error.message;
  // fetch rejects with a TypeError when the request never reached the server.
  if (error instanceof TypeError) return 'You seem to be offline. Check your connection and try again.';
  return fallback;
}
