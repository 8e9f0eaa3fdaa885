import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue, useSetAtom } from 'jotai';
import { CloudOff } from 'lucide-react';
import { Navigate, Outlet } from 'react-router-dom';
import { Button } from '@/components/ui/button';
import { LoadingScreen } from '@/components/ui/loading-screen';
import { authCheckAtom } from '@/lib/auth-check';
import { endSession, sessionAtom } from '@/lib/session';

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

function UnreachableScreen() {
  const queryClient = useQueryClient();
  const setCheck = useSetAtom(authCheckAtom);
  const retry = () => {
    setCheck(null);
    void queryClient.refetchQueries({ type: 'active' });
  };
  return (
    <main className="grid min-h-dvh place-items-center px-6 text-center">
      <div className="w-full max-w-sm">
        <CloudOff aria-hidden="true" className="mx-auto size-10 text-zinc-500" />
        <h1 className="mt-4 text-xl font-semibold text-white">Can't reach PodMatch</h1>
        <p className="mt-2 text-sm text-zinc-400">We could not check your session. Please try again.</p>
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

/** Signed-in routes: 'Loading...' while unknown, /login when anonymous. */
export function RequireAuth() {
  const status = useAuthStatus();
  if (status === 'anonymous') return <Navigate to="/login" replace />;
  if (status === 'unreachable') return <UnreachableScreen />;
  if (status === 'unknown') return <LoadingScreen />;
  return <Outlet />;
}

/** /login: a signed-in visitor goes to the feed. A session that cannot be checked still sees login. */
export function PublicOnly() {
  const status = useAuthStatus();
  if (status === 'authenticated') return <Navigate to="/" replace />;
  if (status === 'unknown') return <LoadingScreen />;
  return <Outlet />;
}
