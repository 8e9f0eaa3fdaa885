import { useQueryClient } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { useEffect, useRef } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { authCheckAtom } from '@/lib/auth-check';
import { savedIntentAtom } from '@/lib/intent';
import { startSession } from '@/lib/session';
import { toast } from '@/lib/toast';
import { loginFailureToast, preloadAuthRequests } from './use-dev-login';

/**
 * After "Continue with Spotify" the server sends the browser to /login?spotify_code=<one-time
 * code>; this trades it (POST /api/auth/spotify/exchange) for a session, like dev login, and opens
 * the feed. The code leaves the URL at once (replace), so it is not kept in history.
 */
export function useSpotifyCodeExchange(): void {
  const [searchParams, setSearchParams] = useSearchParams();
  const code = searchParams.get('spotify_code');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const setCheck = useSetAtom(authCheckAtom);
  const setSavedIntent = useSetAtom(savedIntentAtom);
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (!code || started.current === code) return;
    // Once per code: StrictMode's doubled effect must not spend it twice.
    started.current = code;
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('spotify_code');
        return next;
      },
      { replace: true },
    );
    void (async () => {
      try {
        const { token, user, userQueryKey } = await (await preloadAuthRequests()).requestSpotifyExchange(code);
        queryClient.setQueryData(userQueryKey, user);
        setCheck({ userId: user.id, state: 'valid' });
        setSavedIntent(user.intent);
        startSession({ token, userId: user.id });
        navigate('/', { replace: true });
      } catch (error) {
        toast(loginFailureToast(error));
      }
    })();
  }, [code, setSearchParams, queryClient, setCheck, setSavedIntent, navigate]);
}
