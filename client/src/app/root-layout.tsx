import { useAtomValue } from 'jotai';
import { lazy, Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { LoadingScreen } from '@/components/ui/loading-screen';
import { sessionAtom } from '@/lib/session';
import { AppStatusBar } from './app-status-bar';
import { useHashRedirect } from './hash-redirect';
import { preload } from './preload';
import { useSessionLifecycle } from './session-lifecycle';

const loadSessionServices = () => import('./session-services');
const SessionServices = lazy(loadSessionServices);

/** With a stored session, fetches the session services' chunk before the first render asks for it. */
export function preloadSessionServices(): void {
  preload(loadSessionServices);
}

/**
 * Top of every route: shared-link hash redirect, session bookkeeping, the offline and update bar,
 * and services while signed in.
 */
export function RootLayout() {
  useHashRedirect();
  useSessionLifecycle();
  const session = useAtomValue(sessionAtom);

  return (
    <>
      <AppStatusBar />
      <Suspense fallback={<LoadingScreen />}>
        <Outlet />
      </Suspense>
      {session ? (
        <Suspense fallback={null}>
          <SessionServices key={session.userId} userId={session.userId} />
        </Suspense>
      ) : null}
    </>
  );
}
