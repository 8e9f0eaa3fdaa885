import type { QueryClient } from '@tanstack/react-query';
import { type ComponentType, lazy } from 'react';
import { matchRoutes, type RouteObject } from 'react-router-dom';
import { currentIntentAtom } from '@/lib/intent';
import { appStore } from '@/lib/store';
import { PublicOnly, RequireAuth } from './guards';
import { preload } from './preload';
import { RootLayout } from './root-layout';

type Load = () => Promise<{ default: ComponentType }>;

type Prefetch = (queryClient: QueryClient, userId: number) => Promise<unknown>;

/**
 * What a route needs to be shown: its lazy chunk, the data its screen reads first, and whether only
 * a signed-in person gets there.
 */
interface RouteHandle {
  load?: Load;
  prefetch?: Prefetch;
  signedIn?: boolean;
}

// The feed's first queries, in the intent the screen will open in: asked for alongside the session
// check instead of after it, so the first cards render with the screen.
const prefetchFeed: Prefetch = async (queryClient, userId) => {
  const { feedQuery, feedCountsQuery } = await import('@/features/feed/feed-queries');
  const intent = appStore.get(currentIntentAtom);
  return Promise.all([
    queryClient.prefetchQuery(feedQuery(userId, intent)),
    queryClient.prefetchQuery(feedCountsQuery(userId)),
  ]);
};

// Every screen is its own chunk, so /login loads only what the login screen needs. The signed-in
// layout too: its navigation badges read the typed API client (and so zod).
const loaders = {
  login: () => import('./routes/login-route'),
  notFound: () => import('./routes/not-found-route'),
  setup: () => import('./routes/setup-route'),
  feed: () => import('./routes/feed-route'),
  profile: () => import('./routes/profile-route'),
  matches: () => import('./routes/matches-route'),
  chat: () => import('./routes/chat-route'),
  profileDetails: () => import('./routes/profile-details-route'),
  moderation: () => import('./routes/moderation-route'),
  terms: () => import('./routes/terms-route'),
  privacy: () => import('./routes/privacy-route'),
  appLayout: () => import('./app-layout'),
} satisfies Record<string, Load>;

/** A lazily loaded element, and the handle that lets preloadRoute() fetch its chunk early. */
function screen(load: Load, prefetch?: Prefetch): Pick<RouteObject, 'element' | 'handle'> {
  const Screen = lazy(load);
  return { element: <Screen />, handle: { load, prefetch } satisfies RouteHandle };
}

/** The route table of SPEC section 2. Exported so tests can mount it in a memory router. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { element: <PublicOnly />, children: [{ path: '/login', ...screen(loaders.login) }] },
      // Linked from the login screen: readable whether or not someone is signed in.
      { path: '/terms', ...screen(loaders.terms) },
      { path: '/privacy', ...screen(loaders.privacy) },
      {
        element: <RequireAuth />,
        handle: { signedIn: true } satisfies RouteHandle,
        children: [
          { path: '/setup', ...screen(loaders.setup) },
          { path: '/chat/:matchId', ...screen(loaders.chat) },
          // Wider than the phone column of the layout: a moderator works on a laptop too.
          { path: '/moderation', ...screen(loaders.moderation) },
          {
            ...screen(loaders.appLayout),
            children: [
              { path: '/', ...screen(loaders.feed, prefetchFeed) },
              { path: '/profile', ...screen(loaders.profile) },
              { path: '/matches', ...screen(loaders.matches) },
              { path: '/profile-details/:matchedUserId?/:matchId?', ...screen(loaders.profileDetails) },
            ],
          },
        ],
      },
      { path: '*', ...screen(loaders.notFound) },
    ],
  },
];

/**
 * Starts fetching the chunks the route at `pathname` will render (its layout's and its screen's, in
 * parallel) and its screen's first data, before React gets there one level after the other.
 * Signed-in routes only with a session, as without one they redirect to /login.
 */
export function preloadRoute(pathname: string, session: { queryClient: QueryClient; userId: number } | null): void {
  for (const { route } of matchRoutes(routes, pathname) ?? []) {
    const handle = route.handle as RouteHandle | undefined;
    if (handle?.signedIn && !session) return;
    if (handle?.load) preload(handle.load);
    const { prefetch } = handle ?? {};
    if (prefetch && session) preload(() => prefetch(session.queryClient, session.userId));
  }
}
