import { APP_NAME, APP_TAGLINE } from '@shared/constants';
import { useQuery } from '@tanstack/react-query';
import { Headphones } from 'lucide-react';
import { ClearStorageButton } from './clear-storage-button';
import { DevLoginForm } from './dev-login-form';
import { SpotifyLoginButton } from './spotify-login-button';
import { useLoginErrorToast } from './use-login-error-toast';
import { useSpotifyCodeExchange } from './use-spotify-code-exchange';

// The development section shows unless a build turns it off; the server refuses dev login in production.
const DEV_LOGIN_ENABLED = import.meta.env.VITE_DEV_LOGIN !== 'false';

/** The methods this server offers, loaded after the screen is drawn (the typed client comes with it). */
function useSignInMethods() {
  return useQuery({
    // The key of endpointQuery(api.signInMethods): the Spotify card reads the same answer.
    queryKey: ['/api/auth/methods'] as const,
    queryFn: async () => (await import('./auth-requests')).requestSignInMethods(),
    staleTime: 5 * 60_000,
  }).data;
}

export function LoginScreen() {
  useLoginErrorToast();
  useSpotifyCodeExchange();
  // Only what works here: no Spotify button on a server without Spotify credentials.
  const methods = useSignInMethods();
  return (
    <main className="relative flex min-h-dvh flex-col items-center justify-center overflow-hidden px-6 py-12">
      <div
        aria-hidden="true"
        className="pointer-events-none absolute -top-40 left-1/2 h-80 w-[36rem] -translate-x-1/2 rounded-full bg-[conic-gradient(from_120deg,var(--color-romantic),var(--color-platonic),var(--color-professional),var(--color-romantic))] opacity-25 blur-3xl"
      />
      <div className="relative w-full max-w-sm">
        <header className="text-center">
          <div className="mx-auto grid size-16 place-items-center rounded-3xl bg-gradient-to-br from-romantic via-platonic to-professional shadow-xl shadow-romantic/20">
            <Headphones aria-hidden="true" className="size-8 text-white" />
          </div>
          <h1 className="mt-6 text-4xl font-extrabold tracking-tight text-white">{APP_NAME}</h1>
          <p className="mt-2 text-sm text-zinc-400">{APP_TAGLINE}</p>
        </header>

        <div className="mt-10 grid gap-3">
          {methods?.spotify ? <SpotifyLoginButton /> : null}
          <ClearStorageButton />
        </div>

        {DEV_LOGIN_ENABLED && methods?.devLogin !== false ? (
          <div className="mt-8">
            <DevLoginForm />
          </div>
        ) : null}

        <footer className="mt-10 text-center text-xs leading-relaxed text-zinc-500">
          By continuing you agree to our{' '}
          <a href="/terms" className="text-zinc-300 underline-offset-2 hover:underline">
            Terms of Service
          </a>{' '}
          and{' '}
          <a href="/privacy" className="text-zinc-300 underline-offset-2 hover:underline">
            Privacy Policy
          </a>
        </footer>
      </div>
    </main>
  );
}
