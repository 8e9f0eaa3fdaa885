import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue, useSetAtom } from 'jotai';
import { CloudOff } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { LoadingScreen } from '@/components/ui/loading-screen';
import { authCheckAtom } from '@/lib/auth-check';
import { useConnection } from '@/lib/online';
import { endSession, sessionAtom } from '@/lib/session';
import { useCurrentUser } from '@/lib/user-queries';

export type AuthStatus = 'unknown' | 'authenticated' | 'anonymous' | 'unreachable';

/**
 * Login state: no stored session = anonymous; a stored one is unknown until SessionServices has
 * checked it with GET /api/users/:id (a 401 there ends the session, making it anonymous).
 */
export function useAuthStatus(): AuthStatus {
  const session = useAtomValue(sessionAtom);
  const check = useAtomValue(authCheckAtom);
  if (!session) return 'anonymous';
  if (check?.userId !== session.userId) return 'unknown';
  return check.state === 'valid' ? 'authenticated' : 'unreachable';
}

/** Tries again by itself after these waits while the network is away (then every 30 s). */
const RETRY_DELAYS_MS = [2_000, 4_000, 8_000, 16_000, 30_000];

/**
 * The session could not be checked. Without a network (the app opened from the service worker's
 * cache) it says so and tries again by itself: on the browser's `online` event and after growing
 * waits, as the network may come back without one.
 */
function UnreachableScreen() {
  const queryClient = useQueryClient();
  const setCheck = useSetAtom(authCheckAtom);
  const connection = useConnection();
  const waiting = connection !== 'online';
  const retry = useCallback(() => {
    setCheck(null);
    void queryClient.refetchQueries({ type: 'active' });
  }, [queryClient, setCheck]);
  useEffect(() => {
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [retry]);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!waiting) return;
    const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
    const timer = setTimeout(() => {
      setAttempt((n) => n + 1);
      void queryClient.refetchQueries({ type: 'active' });
    }, delay);
    return () => clearTimeout(timer);
  }, [waiting, attempt, queryClient]);
  return (
    <main className="grid min-h-dvh place-items-center px-6 text-center">
      <div className="w-full max-w-sm">
        <CloudOff aria-hidden="true" className="mx-auto size-10 text-zinc-500" />
        <h1 className="mt-4 text-xl font-semibold text-white">
          {waiting ? 'Waiting for a connection' : "Can't reach PodMatch"}
        </h1>
        <p className="mt-2 text-sm text-zinc-400">
          {waiting
            ? 'Your matches and messages load as soon as PodMatch can be reached again.'
            : 'We could not check your session. Please try again.'}
        </p>
        <div className="mt-6 grid gap-3">
          <Button onClick={retry}>Try again</Button>
          <Button variant="ghost" onClick={() => endSession()}>
            Log out
          </Button>
        </div>
      </div>
    </main>
  );
}

/**
 * Signed-in screens a person who has not finished the setup wizard is sent away from, to /setup
 * (docs/profiles.md, "Setup wizard"): the feed, profile, matches and profile details. /setup itself
 * and a chat (reached from a notification or a shared link) stay open, so there is never a loop.
 */
function needsSetupRedirect(pathname: string): boolean {
  return !/^\/(setup|chat)(\/|$)/.test(pathname);
}

/**
 * Signed-in routes: 'Loading...' while unknown, /login when anonymous, and /setup until the
 * signed-in person has completed setup (see needsSetupRedirect).
 */
export function RequireAuth() {
  const status = useAuthStatus();
  const user = useCurrentUser();
  const { pathname, search } = useLocation();
  if (status === 'anonymous') return <Navigate to="/login" replace />;
  if (status === 'unreachable') return <UnreachableScreen />;
  if (status === 'unknown') return <LoadingScreen />;
  // The query goes along: the Spotify connection returns to /profile?spotify_connect=<code> (or
  // ?spotify_error=), a Bluesky link to /profile?bluesky_link=<code> (or ?bluesky_error=), which the
  // wizard's step 4 (the same cards) then claims or reports.
  if (user && !user.setupComplete && needsSetupRedirect(pathname)) {
    return <Navigate to={{ pathname: '/setup', search }} replace />;
  }
  return <Outlet />;
}

/** /login: a signed-in visitor goes to the feed. A session that cannot be checked still sees login. */
export function PublicOnly() {
  const status = useAuthStatus();
  if (status === 'authenticated') return <Navigate to="/" replace />;
  if (status === 'unknown') return <LoadingScreen />;
  return <Outlet />;
}
