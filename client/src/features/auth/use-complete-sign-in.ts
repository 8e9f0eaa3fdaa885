import { useQueryClient } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { authCheckAtom } from '@/lib/auth-check';
import { savedIntentAtom } from '@/lib/intent';
import { startSession } from '@/lib/session';
import { forgetSuspension } from '@/lib/suspension';
import type { SignedIn } from './auth-requests';

/**
 * What every way in does with its session: the token to both storages, the user into the query
 * cache (so the route guards need no second round trip), then the app (a new account's setup first,
 * by the guards).
 */
export function useCompleteSignIn(): (signedIn: SignedIn) => void {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const setCheck = useSetAtom(authCheckAtom);
  const setSavedIntent = useSetAtom(savedIntentAtom);
  return useCallback(
    ({ token, user, userQueryKey }: SignedIn) => {
      queryClient.setQueryData(userQueryKey, user);
      setCheck({ userId: user.id, state: 'valid' });
      setSavedIntent(user.intent);
      startSession({ token, userId: user.id });
      // A statement shown after an earlier refused sign-in is over; the app shows what is new.
      forgetSuspension();
      navigate('/', { replace: true });
    },
    [queryClient, setCheck, setSavedIntent, navigate],
  );
}
