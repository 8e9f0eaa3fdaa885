import { QueryCache, QueryClient, type QueryFunction } from '@tanstack/react-query';
import { apiFetch, isApiError, type On401 } from './http';
import { endSession, sessionAtom } from './session';
import { appStore } from './store';

/**
 * The default query function (SPEC section 7): the first element of the query key is the URL, the
 * answer is its JSON. `on401: 'returnNull'` resolves to null instead of throwing on 401.
 * Typed, schema-checked queries come from endpointQuery() in api-client.ts.
 */
export function getQueryFn<T>({ on401 = 'throw' }: { on401?: On401 } = {}): QueryFunction<T> {
  return async ({ queryKey, signal }) => {
    const [url] = queryKey;
    if (typeof url !== 'string') throw new Error('The first element of the query key must be the URL');
    return (await apiFetch(url, { on401, signal })) as T;
  };
}

/** QueryClient with the SPEC section 4 settings: never stale, no polling, no focus refetch, no retries. */
export function createQueryClient(store = appStore): QueryClient {
  return new QueryClient({
    // A 401 on a call made with a stored session means it ended elsewhere: sign out here too.
    queryCache: new QueryCache({
      onError: (error) => {
        if (isApiError(error, 401) && store.get(sessionAtom)) endSession(store);
      },
    }),
    defaultOptions: {
      queries: {
        queryFn: getQueryFn(),
        staleTime: Number.POSITIVE_INFINITY,
        refetchInterval: false,
        refetchOnWindowFocus: false,
        retry: false,
      },
      mutations: { retry: false },
    },
  });
}
