import { api } from '@shared/api';
import { NEW_TOKEN_HEADER, STORAGE_KEYS } from '@shared/constants';
import { describe, expect, it } from 'vitest';
import { makeEntry } from '@/features/podcasts/podcast-test-data';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch } from '@/test/utils';
import { ApiError, allPagesQuery, apiFetch, apiRequest, endpointQuery, InvalidResponseError } from './api-client';
import { createQueryClient, getQueryFn } from './query-client';
import { readStoredToken, sessionAtom, writeStoredSession } from './session';
import { appStore } from './store';

function lastCall(fetchMock: ReturnType<typeof mockFetch>) {
  const call = fetchMock.mock.calls.at(-1);
  if (!call) throw new Error('fetch was not called');
  const [url, init = {}] = call;
  return { url: String(url), init, headers: new Headers(init.headers) };
}

describe('apiFetch', () => {
  it('sends credentials and a bearer token when one is stored', async () => {
    writeStoredSession({ token: 'secret', userId: 1 });
    const fetchMock = mockFetch(() => jsonResponse({ ok: true }));
    await apiFetch('/api/things');
    const { init, headers } = lastCall(fetchMock);
    expect(init.credentials).toBe('include');
    expect(headers.get('Authorization')).toBe('Bearer secret');
  });

  it('sends no Authorization header without a stored token', async () => {
    const fetchMock = mockFetch(() => jsonResponse({}));
    await apiFetch('/api/things');
    expect(lastCall(fetchMock).headers.has('Authorization')).toBe(false);
  });

  it('sends a JSON content type only when a JSON body is given', async () => {
    const fetchMock = mockFetch(() => jsonResponse({}));
    await apiFetch('/api/things');
    expect(lastCall(fetchMock).headers.has('Content-Type')).toBe(false);

    await apiFetch('/api/things', { method: 'POST', json: { a: 1 } });
    const { init, headers } = lastCall(fetchMock);
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init.body).toBe('{"a":1}');
    expect(init.method).toBe('POST');

    await apiFetch('/api/upload', { method: 'POST', body: new FormData() });
    expect(lastCall(fetchMock).headers.has('Content-Type')).toBe(false);
  });

  it('replaces the stored token from the X-New-Token header', async () => {
    writeStoredSession({ token: 'old', userId: 4 });
    appStore.set(sessionAtom, { token: 'old', userId: 4 });
    mockFetch(() => jsonResponse({}, { headers: { [NEW_TOKEN_HEADER]: 'fresh' } }));
    await apiFetch('/api/things');
    expect(readStoredToken()).toBe('fresh');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBe('fresh');
    expect(sessionStorage.getItem(STORAGE_KEYS.token)).toBe('fresh');
    expect(appStore.get(sessionAtom)).toEqual({ token: 'fresh', userId: 4 });
  });

  it('throws "status: body" for a non-OK answer and keeps status and parsed body', async () => {
    const body = { error: 'forbidden', message: 'Not yours' };
    mockFetch(() => jsonResponse(body, { status: 403 }));
    const error = await apiFetch('/api/things').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.message).toBe(`403: ${JSON.stringify(body)}`);
    expect(apiError.status).toBe(403);
    expect(apiError.body).toEqual(body);
    expect(apiError.serverMessage).toBe('Not yours');
  });

  it('uses the status text when the error body is empty', async () => {
    mockFetch(() => new Response(null, { status: 500, statusText: 'Internal Server Error' }));
    await expect(apiFetch('/api/things')).rejects.toThrow('500: Internal Server Error');
  });

  it('throws on 401 by default and returns null with on401: returnNull', async () => {
    mockFetch(() => jsonResponse({ error: 'unauthorized', message: 'Sign in' }, { status: 401 }));
    await expect(apiFetch('/api/things')).rejects.toMatchObject({ status: 401 });
    await expect(apiFetch('/api/things', { on401: 'returnNull' })).resolves.toBeNull();
  });
});

describe('apiRequest (typed endpoints)', () => {
  it('builds the path from params and parses the answer with the endpoint schema', async () => {
    const user = makeSelfUser({ id: 42 });
    const fetchMock = mockFetch(() => jsonResponse(user));
    const result = await apiRequest(api.getUser, { params: { userId: 42 } });
    expect(lastCall(fetchMock).url).toBe('/api/users/42');
    expect(lastCall(fetchMock).init.method).toBe('GET');
    expect(result).toEqual(user);
  });

  it('sends the body as JSON with the endpoint method', async () => {
    const fetchMock = mockFetch(() => jsonResponse(makeSelfUser({ id: 3, intent: 'platonic' })));
    await apiRequest(api.updateUser, { params: { userId: 3 }, body: { intent: 'platonic' } });
    const { url, init, headers } = lastCall(fetchMock);
    expect(url).toBe('/api/users/3');
    expect(init.method).toBe('PUT');
    expect(init.body).toBe('{"intent":"platonic"}');
    expect(headers.get('Content-Type')).toBe('application/json');
  });

  it('rejects an answer that does not match the contract', async () => {
    mockFetch(() => jsonResponse({ user: makeSelfUser() }));
    await expect(apiRequest(api.devLogin, { body: { username: 'sam' } })).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it('supports on401: returnNull', async () => {
    mockFetch(() => jsonResponse({ error: 'unauthorized', message: 'no' }, { status: 401 }));
    await expect(apiRequest(api.getUser, { params: { userId: 1 } }, { on401: 'returnNull' })).resolves.toBeNull();
  });

  it('endpointQuery keys the query by its URL', () => {
    expect(endpointQuery(api.getUser, { params: { userId: 8 } }).queryKey).toEqual(['/api/users/8']);
  });
});

describe('query client', () => {
  it('the default query function fetches the first element of the query key', async () => {
    const fetchMock = mockFetch(() => jsonResponse({ hello: 'world' }));
    const queryClient = createQueryClient();
    await expect(queryClient.fetchQuery({ queryKey: ['/api/anything', { page: 2 }] })).resolves.toEqual({
      hello: 'world',
    });
    expect(lastCall(fetchMock).url).toBe('/api/anything');
  });

  it('getQueryFn can return null on 401', async () => {
    mockFetch(() => jsonResponse({}, { status: 401 }));
    const queryClient = createQueryClient();
    const data = await queryClient.fetchQuery({ queryKey: ['/api/me'], queryFn: getQueryFn({ on401: 'returnNull' }) });
    expect(data).toBeNull();
  });

  it('uses the SPEC section 4 defaults', () => {
    const { queries, mutations } = createQueryClient().getDefaultOptions();
    expect(queries?.staleTime).toBe(Number.POSITIVE_INFINITY);
    expect(queries?.refetchInterval).toBe(false);
    expect(queries?.refetchOnWindowFocus).toBe(false);
    expect(queries?.retry).toBe(false);
    expect(mutations?.retry).toBe(false);
  });
});

describe('allPagesQuery', () => {
  const entry = (id: number) => makeEntry({ id, podcast: { id } });

  it('reads every page in turn under the plain list URL, keeping an item that moved pages once', async () => {
    writeStoredSession({ token: 't', userId: 5 });
    const fetchMock = mockFetch((url) => {
      if (url === '/api/users/5/podcasts') return jsonResponse([entry(1), entry(2), entry(3)]);
      // Entry 3 moved to the second page meanwhile: it comes back again, and only once in the result.
      if (url === '/api/users/5/podcasts?offset=3') return jsonResponse([entry(3), entry(4), entry(5)]);
      if (url === '/api/users/5/podcasts?offset=6') return jsonResponse([entry(6)]);
      return jsonResponse({ error: 'not_found', message: 'no' }, { status: 404 });
    });
    const query = allPagesQuery(api.listUserPodcasts, { params: { userId: 5 } }, 3);
    expect(query.queryKey).toEqual(['/api/users/5/podcasts']);
    const all = await createQueryClient().fetchQuery(query);
    expect(all.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });
});
