import { STORAGE_KEYS } from '@shared/constants';
import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue, useStore } from 'jotai';
import { useEffect, useRef } from 'react';
import { authCheckAtom } from '@/lib/auth-check';
import { currentIntentAtom, savedIntentAtom, selectedIntentAtom } from '@/lib/intent';
import { endSession, reloadSession, sessionAtom } from '@/lib/session';
import { applyCurrentIntent } from '@/lib/theme';

/**
 * App-wide session bookkeeping: forget the previous user's data when the session ends or changes,
 * follow logins/logouts made in other tabs, and paint the page in the current intent's colour.
 */
export function useSessionLifecycle(): void {
  const store = useStore();
  const queryClient = useQueryClient();
  const session = useAtomValue(sessionAtom);
  const userId = session?.userId ?? null;
  const previousUserId = useRef(userId);

  useEffect(() => {
    if (previousUserId.current !== null && previousUserId.current !== userId) {
      // The cache holds the previous user's data, badges included.
      queryClient.clear();
      store.set(authCheckAtom, null);
      store.set(selectedIntentAtom, null);
      store.set(savedIntentAtom, null);
    }
    previousUserId.current = userId;
  }, [userId, queryClient, store]);

  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.storageArea !== window.localStorage) return;
      const sessionKey = event.key === STORAGE_KEYS.token || event.key === STORAGE_KEYS.userId;
      if (event.key !== null && !sessionKey) return;
      // Another tab logged out (or cleared storage): end this tab's copy in sessionStorage too.
      if (event.key === null || event.newValue === null) {
        if (store.get(sessionAtom)) endSession(store);
        return;
      }
      // Another tab logged in or rotated the token: re-read storage.
      reloadSession(store);
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [store]);

  const intent = useAtomValue(currentIntentAtom);
  useEffect(() => applyCurrentIntent(intent), [intent]);
}
