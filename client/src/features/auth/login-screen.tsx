import { APP_NAME, APP_TAGLINE } from '@shared/constants';
import { useQuery } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { ChevronDown, Headphones } from 'lucide-react';
import { useState } from 'react';
import { suspensionAtom } from '@/lib/suspension';
import { BlueskySignIn } from './bluesky-sign-in';
import { ClearStorageButton } from './clear-storage-button';
import { DevLoginForm } from './dev-login-form';
import { EmailSignIn } from './email-sign-in';
import { PasskeyButtons, usePasskeyAutofill } from './passkey-sign-in';
import { SpotifyLoginButton } from './spotify-login-button';
import { SuspendedPanel } from './suspended-panel';
import { useLoginErrorToast } from './use-login-error-toast';
import { useBlueskyCodeExchange, useSpotifyCodeExchange } from './use-spotify-code-exchange';

// The development section shows unless a build turns it off; the server refuses dev login in production.
const DEV_LOGIN_ENABLED = import.meta.env.VITE_DEV_LOGIN !== 'false';

/** The methods this server offers, loaded after the screen is drawn (the typed client comes with it). */
function useSignInMethods() {
  return useQuery({
    // The key of endpointQuery(api.signInMethods): the Spotify card reads the same answer.
    queryKey: ['/api/auth/methods'] as const,
    queryFn: async () => (await import('./auth-requests')).requestSignInMethods(),
    staleTime: 5 * 60_000,
  });
}

function Divider() {
  return (
    <div className="flex items-center gap-3 text-xs text-zinc-500" aria-hidden="true">
      <span className="h-px flex-1 bg-white/10" />
      or
      <span className="h-px flex-1 bg-white/10" />
    </div>
  );
}

/** What someone who lost their passkey can do, said plainly (docs/auth.md, "Recovery"). */
function LostPasskeyHelp({ email, bluesky, spotify }: { email: boolean; bluesky: boolean; spotify: boolean }) {
  const others = [bluesky ? 'Bluesky' : null, spotify ? 'Spotify' : null].filter(Boolean).join(' or ');
  return (
    <details className="rounded-2xl border border-white/10 bg-white/[0.02] px-4 text-sm text-zinc-300">
      <summary className="flex min-h-11 cursor-pointer list-none items-center justify-between font-medium text-zinc-200">
        Lost your passkey?
        <ChevronDown aria-hidden="true" className="size-4 text-zinc-400" />
      </summary>
      <div className="grid gap-2 pb-3 text-xs leading-relaxed text-zinc-400">
        {email ? <p>If your account has an email address, enter it above: we send you a code and you are in.</p> : null}
        {others ? <p>If you linked {others} to your account, continue with it.</p> : null}
        <p>
          If your only way in was that passkey, a passkey synced by your password manager (iCloud Keychain, Google
          Password Manager, 1Password...) also works on your other devices. Without any of these we cannot tell that the
          account is yours, so it cannot be recovered; you can start a new one.
        </p>
      </div>
    </details>
  );
}

export function LoginScreen() {
  useLoginErrorToast();
  useSpotifyCodeExchange();
  useBlueskyCodeExchange();
  // Only what works here: each way in shows once the server says it offers it.
  const { data: methods, isError } = useSignInMethods();
  const [passkeyProblem, setPasskeyProblem] = useState<string | null>(null);
  // A refused sign-in of a suspended account, or a session a moderator just ended: its statement of
  // reasons replaces the ways in until the person goes back to them.
  const suspension = useAtomValue(suspensionAtom);
  const autofill = usePasskeyAutofill(Boolean(methods?.passkey));

  return (
    // Top-aligned, not centred: the ways in arrive after the first paint, and a centred column would
    // jump up as they do (a layout shift of the whole screen).
    <main className="relative flex min-h-dvh flex-col items-center overflow-hidden px-6 pt-[max(3rem,10dvh)] pb-12">
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

        {suspension ? <SuspendedPanel suspension={suspension} /> : null}
        <section
          aria-label="Sign in or create an account"
          className="mt-10 grid gap-4"
          data-testid="sign-in-methods"
          hidden={Boolean(suspension)}
        >
          {isError ? (
            <p role="status" className="text-center text-sm text-red-300">
              We could not reach the server. Check your connection and reload the page.
            </p>
          ) : null}
          {methods?.passkey ? (
            <>
              <PasskeyButtons onProblem={setPasskeyProblem} />
              <p role="alert" data-testid="passkey-problem" className="text-center text-xs text-red-300 empty:hidden">
                {passkeyProblem}
              </p>
            </>
          ) : null}
          {methods?.passkey && methods.email ? <Divider /> : null}
          {methods?.email ? <EmailSignIn passkeyAutofill={autofill} /> : null}
          {methods && (methods.bluesky || methods.spotify) && (methods.passkey || methods.email) ? <Divider /> : null}
          {methods?.bluesky ? <BlueskySignIn /> : null}
          {methods?.spotify ? <SpotifyLoginButton /> : null}
          {methods?.passkey ? (
            <LostPasskeyHelp email={methods.email} bluesky={methods.bluesky} spotify={methods.spotify} />
          ) : null}
          {methods || isError ? <ClearStorageButton /> : null}
        </section>

        {/* Below the ways in: shown once they are known, so nothing already drawn is pushed down. */}
        {DEV_LOGIN_ENABLED && (methods ? methods.devLogin !== false : isError) ? (
          <div className="mt-8" hidden={Boolean(suspension)}>
            <DevLoginForm />
          </div>
        ) : null}

        <footer className="mt-10 text-center text-xs leading-relaxed text-zinc-500" hidden={!methods && !isError}>
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
