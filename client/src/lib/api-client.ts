import { type BodyOf, buildPath, type Endpoint, type ParamsOf, type QueryOf, type ResponseOf } from '@shared/api';
import { queryOptions } from '@tanstack/react-query';
import type { z } from 'zod';
import { apiFetch, InputProblem, InvalidResponseError, type On401 } from './http';
import { uploadWithProgress } from './upload';

// The typed API client. It imports the shared endpoint table (and so zod): modules on the first
// load of /login use ./http directly and reach this file through a dynamic import.
export * from './http';

// `{}` and zod's strict empty object (Record<string, never>) both count as "nothing to send".
type IsEmpty<T> = [T[keyof T]] extends [never] ? true : false;

/** What a call to endpoint E needs: params/body only when the endpoint declares them. */
export type RequestInput<E extends Endpoint> = (IsEmpty<ParamsOf<E>> extends true
  ? { params?: undefined }
  : { params: ParamsOf<E> }) &
  (IsEmpty<QueryOf<E>> extends true ? { query?: undefined } : { query?: QueryOf<E> }) &
  (IsEmpty<BodyOf<E>> extends true ? { body?: undefined } : { body: BodyOf<E> });

export interface RequestOptions {
  on401?: On401;
  signal?: AbortSignal;
}

type PathValues = Record<string, string | number>;
type QueryValues = Record<string, string | number | boolean | undefined>;

/** The URL of a call, e.g. endpointUrl(api.getUser, { params: { userId: 5 } }) -> '/api/users/5'. */
export function endpointUrl<E extends Endpoint>(endpoint: E, input: RequestInput<E>): string {
  const { params, query } = input as { params?: PathValues; query?: QueryValues };
  return buildPath(endpoint.path, params ?? {}, query ?? {});
}

/**
 * A typed call derived from a shared endpoint definition: fills the path, sends the body as JSON
 * and parses the answer with the endpoint's response schema.
 */
export function apiRequest<E extends Endpoint>(
  endpoint: E,
  input: RequestInput<E>,
  options: RequestOptions & { on401: 'returnNull' },
): Promise<ResponseOf<E> | null>;
export function apiRequest<E extends Endpoint>(
  endpoint: E,
  input: RequestInput<E>,
  options?: RequestOptions & { on401?: 'throw' },
): Promise<ResponseOf<E>>;
export async function apiRequest<E extends Endpoint>(
  endpoint: E,
  input: RequestInput<E>,
  options: RequestOptions = {},
): Promise<ResponseOf<E> | null> {
  const url = endpointUrl(endpoint, input);
  const { body } = input as { body?: unknown };
  const data = await apiFetch(url, {
    method: endpoint.method,
    json: endpoint.method !== 'GET' ? body : undefined,
    on401: options.on401,
    signal: options.signal,
  });
  if (data === null && options.on401 === 'returnNull') return null;
  const parsed = endpoint.response.safeParse(data);
  if (!parsed.success) throw new InvalidResponseError(url, parsed.error);
  return parsed.data as ResponseOf<E>;
}

/**
 * Checks input with a contract schema before it is sent: a refusal is an InputProblem carrying the
 * schema's first sentence (errorMessage shows it), so a form says what the server would have said.
 */
export function checkInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InputProblem(parsed.error.issues[0]?.message ?? 'Please check what you entered.');
  return parsed.data;
}

/**
 * Query options for a shared GET endpoint. The key is [url], so the default fetcher, cache updates
 * from the socket and invalidations all agree on it; the answer is parsed with the endpoint schema.
 */
export function endpointQuery<E extends Endpoint>(endpoint: E, input: RequestInput<E>) {
  return queryOptions<ResponseOf<E>, Error, ResponseOf<E>, readonly [string]>({
    queryKey: [endpointUrl(endpoint, input)] as const,
    queryFn: ({ signal }) => apiRequest(endpoint, input, { signal }),
  });
}

/**
 * A paginated list endpoint read whole (the server caps each page; shared pageQuerySchema): pages
 * of the server's default size (`pageSize`, PAGE_SIZES) fetched in turn until one comes back short,
 * under the key of the list's URL without paging, so cache updates that target the list keep
 * working. The first page is the plain URL. Items that moved between two pages (a new favourite)
 * are kept once.
 */
export function allPagesQuery<E extends Endpoint>(endpoint: E, input: RequestInput<E>, pageSize: number) {
  return queryOptions<ResponseOf<E>, Error, ResponseOf<E>, readonly [string]>({
    queryKey: [endpointUrl(endpoint, input)] as const,
    queryFn: async ({ signal }) => {
      const { query } = input as { query?: QueryValues };
      const all: { id: number }[] = [];
      const seen = new Set<number>();
      for (let offset = 0; ; offset += pageSize) {
        const pageInput = (offset === 0 ? input : { ...input, query: { ...query, offset } }) as RequestInput<E>;
        const page = (await apiRequest(endpoint, pageInput, { signal })) as unknown as { id: number }[];
        for (const item of page) {
          if (!seen.has(item.id)) {
            seen.add(item.id);
            all.push(item);
          }
        }
        if (page.length < pageSize) return all as unknown as ResponseOf<E>;
      }
    },
  });
}

/**
 * An upload through a shared multipart endpoint definition: the file goes in the endpoint's own
 * form field (`file`), with upload progress when asked for (XMLHttpRequest; fetch cannot report it),
 * and the answer is parsed with its response schema.
 */
export async function uploadRequest<E extends Endpoint>(
  endpoint: E,
  input: RequestInput<E>,
  file: Blob,
  options: { onProgress?: (percent: number) => void; signal?: AbortSignal } = {},
): Promise<ResponseOf<E>> {
  if (endpoint.kind !== 'multipart' || !endpoint.file) {
    throw new Error(`${endpoint.method} ${endpoint.path} takes no file upload`);
  }
  const url = endpointUrl(endpoint, input);
  let data: unknown;
  if (options.onProgress) data = await uploadWithProgress(url, file, { field: endpoint.file, ...options });
  else {
    const form = new FormData();
    form.append(endpoint.file, file);
    data = await apiFetch(url, { method: endpoint.method, body: form, signal: options.signal });
  }
  const parsed = endpoint.response.safeParse(data);
  if (!parsed.success) throw new InvalidResponseError(url, parsed.error);
  return parsed.data as ResponseOf<E>;
}
