import { isSelfUser } from '@shared/schemas/user';
import { useQuery } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { lazy, Suspense, startTransition, useEffect, useState } from 'react';
import { isApiError } from '@/lib/api-client';
import { authCheckAtom } from '@/lib/auth-check';
import { savedIntentAtom } from '@/lib/intent';
import { endSession } from '@/lib/session';
import { userQuery } from '@/lib/user-queries';

const RealtimeBridge = lazy(() => import('./realtime-bridge'));

/**
 * False until the browser is first idle after `ready` (at most `timeoutMs` later): work that can wait
 * for the screen to be drawn (socket.io, connecting) then runs in a task of its own.
 */
function useIdleAfter(ready: boolean, timeoutMs = 1000): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (!ready) return;
    if (typeof requestIdleCallback !== 'function') {
      const timer = setTimeout(() => setIdle(true), 0);
      return () => clearTimeout(timer);
    }
    const handle = requestIdleCallback(() => setIdle(true), { timeout: timeoutMs });
    return () => cancelIdleCallback(handle);
  }, [ready, timeoutMs]);
  return idle;
}

/**
 * Mounted (lazily, so zod and socket.io stay out of the anonymous first load) while a session is
 * stored. Validates it with GET /api/users/:id: 401 or 404 ends it, an unreachable server is
 * reported to the guards; once valid it mirrors the saved intent and, once the browser is idle (the
 * first screen drawn), opens the realtime bridge.
 */
export default function SessionServices({ userId }: { userId: number }) {
  const query = useQuery(userQuery(userId));
  const setCheck = useSetAtom(authCheckAtom);
  const setSavedIntent = useSetAtom(savedIntentAtom);
  const user = query.data;
  const rejected = isApiError(query.error, 401) || isApiError(query.error, 404);
  const idle = useIdleAfter(user !== undefined);

  useEffect(() => {
    if (!user) return;
    // The signed-in screens replace 'Loading...' in a transition: React renders them in short
    // slices, so that a phone's main thread is never blocked for the whole first render.
    startTransition(() => {
      setCheck({ userId, state: 'valid' });
      if (isSelfUser(user)) setSavedIntent(user.intent);
    });
  }, [user, userId, setCheck, setSavedIntent]);

  // Keyed on the failure time: a retry that fails again must report again.
  const failedAt = query.isError ? query.errorUpdatedAt : 0;
  useEffect(() => {
    if (!failedAt) return;
    if (rejected) endSession();
    else if (!user) setCheck({ userId, state: 'unreachable' });
  }, [failedAt, rejected, user, userId, setCheck]);

  return user && idle ? (
    <Suspense fallback={null}>
      <RealtimeBridge userId={userId} />
    </Suspense>
  ) : null;
}
