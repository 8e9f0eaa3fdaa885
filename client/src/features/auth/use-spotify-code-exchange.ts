import { BLUESKY_TEXTS } from '@shared/schemas/bluesky';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router-dom';
import { toast } from '@/lib/toast';
import { useReturnParams } from '@/lib/use-return-params';
import type { SignedIn } from './auth-requests';
import { useCompleteSignIn } from './use-complete-sign-in';
import { preloadAuthRequests, toastLoginFailure } from './use-dev-login';

/**
 * After a provider's approval the server sends the browser to /login?<param>=<one-time code>; this
 * trades it for a session and opens the app. The code leaves the URL at once (replace), so it is
 * not kept in history.
 */
function useCodeExchange(param: string, exchange: (code: string) => Promise<SignedIn>): void {
  const [searchParams, setSearchParams] = useSearchParams();
  const code = searchParams.get(param);
  const complete = useCompleteSignIn();
  const started = useRef<string | null>(null);
  const latestExchange = useRef(exchange);
  latestExchange.current = exchange;

  useEffect(() => {
    if (!code || started.current === code) return;
    // Once per code: StrictMode's doubled effect must not spend it twice.
    started.current = code;
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(param);
        return next;
      },
      { replace: true },
    );
    void (async () => {
      try {
        complete(await latestExchange.current(code));
      } catch (error) {
        toastLoginFailure(error);
      }
    })();
  }, [code, param, setSearchParams, complete]);
}

/** "Continue with Spotify": /login?spotify_code= (POST /api/auth/spotify/exchange). */
export function useSpotifyCodeExchange(): void {
  useCodeExchange('spotify_code', async (code) => (await preloadAuthRequests()).requestSpotifyExchange(code));
}

/** Why a Bluesky sign-in came back without a code (`/login?bluesky_error=`). */
const BLUESKY_SIGN_IN_ERRORS: Record<string, string> = {
  other_browser:
    'The Bluesky approval came back in another browser than the one that started it. Please try again here.',
  not_claimed: BLUESKY_TEXTS.notClaimed,
  unavailable: 'Signing in with Bluesky is not set up on this server.',
};

/**
 * "Continue with Bluesky" comes back to /login?bluesky_code= (traded at POST
 * /api/auth/bluesky/exchange for a session) or ?bluesky_error= (a toast); once each.
 */
export function useBlueskyCodeExchange(): void {
  const complete = useCompleteSignIn();
  useReturnParams('bluesky_code', 'bluesky_error', ({ code, error }) => {
    if (error || !code) {
      toast({
        variant: 'destructive',
        title: 'Bluesky sign-in failed',
        description: BLUESKY_SIGN_IN_ERRORS[error ?? ''] ?? BLUESKY_TEXTS.signInFailed,
      });
      return;
    }
    void (async () => {
      try {
        complete(await (await preloadAuthRequests()).requestBlueskyExchange(code));
      } catch (error) {
        toastLoginFailure(error);
      }
    })();
  });
}
