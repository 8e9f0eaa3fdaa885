import { lazy } from 'react';
import type { RouteObject } from 'react-router-dom';
import { AppLayout } from './app-layout';
import { PublicOnly, RequireAuth } from './guards';
import { RootLayout } from './root-layout';

// Every screen is its own chunk, so /login loads only what the login screen needs.
const LoginRoute = lazy(() => import('./routes/login-route'));
const NotFoundRoute = lazy(() => import('./routes/not-found-route'));
const SetupRoute = lazy(() => import('./routes/setup-route'));
const FeedRoute = lazy(() => import('./routes/feed-route'));
const ProfileRoute = lazy(() => import('./routes/profile-route'));
const MatchesRoute = lazy(() => import('./routes/matches-route'));
const ChatRoute = lazy(() => import('./routes/chat-route'));
const ProfileDetailsRoute = lazy(() => import('./routes/profile-details-route'));
const TermsRoute = lazy(() => import('./routes/terms-route'));
const PrivacyRoute = lazy(() => import('./routes/privacy-route'));

/** The route table of SPEC section 2. Exported so tests can mount it in a memory router. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { element: <PublicOnly />, children: [{ path: '/login', element: <LoginRoute /> }] },
      // Linked from the login screen: readable whether or not someone is signed in.
      { path: '/terms', element: <TermsRoute /> },
      { path: '/privacy', element: <PrivacyRoute /> },
      {
        element: <RequireAuth />,
        children: [
          { path: '/setup', element: <SetupRoute /> },
          { path: '/chat/:matchId', element: <ChatRoute /> },
          {
            element: <AppLayout />,
            children: [
              { path: '/', element: <FeedRoute /> },
              { path: '/profile', element: <ProfileRoute /> },
              { path: '/matches', element: <MatchesRoute /> },
              { path: '/profile-details/:matchedUserId?/:matchId?', element: <ProfileDetailsRoute /> },
            ],
          },
        ],
      },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
];
