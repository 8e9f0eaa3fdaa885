import { KeyRound, UserPlus } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { passkeyProblem } from '@/lib/passkey-problem';
import { useCompleteSignIn } from './use-complete-sign-in';
import { preloadAuthRequests } from './use-dev-login';

/** A sentence for a passkey ceremony that did not finish: cancelled, refused by the server, or unsupported. */
/**
 * Waits for a passkey picked from the email field's autofill (conditional mediation) while the
 * screen is open; answers whether the browser offers it, so the field can ask for it. It works in
 * the background: a failure says nothing (the buttons remain, and say why when pressed).
 */
export function usePasskeyAutofill(enabled: boolean): boolean {
  const complete = useCompleteSignIn();
  const [supported, setSupported] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    void (async () => {
      try {
        const requests = await preloadAuthRequests();
        if (!(await requests.passkeyAutofillSupported()) || !live) return;
        setSupported(true);
        const signedIn = await requests.requestPasskeySignIn({ autofill: true });
        if (live) complete(signedIn);
      } catch {
        // Aborted by a button's ceremony or by leaving the screen, or refused: the buttons remain.
      }
    })();
    return () => {
      live = false;
    };
  }, [enabled, complete]);
  return supported;
}

/** "Sign in with a passkey" and "Create an account with a passkey". */
export function PasskeyButtons({ onProblem }: { onProblem: (message: string | null) => void }) {
  const complete = useCompleteSignIn();
  const [busy, setBusy] = useState<'signIn' | 'signUp' | null>(null);

  const run = async (kind: 'signIn' | 'signUp') => {
    setBusy(kind);
    onProblem(null);
    try {
      const requests = await preloadAuthRequests();
      complete(kind === 'signIn' ? await requests.requestPasskeySignIn() : await requests.requestPasskeySignUp());
    } catch (error) {
      onProblem(passkeyProblem(error));
      setBusy(null);
    }
  };

  return (
    <div className="grid gap-2">
      <Button size="lg" className="w-full" disabled={busy !== null} onClick={() => void run('signIn')}>
        {busy === 'signIn' ? <Spinner className="size-5" /> : <KeyRound aria-hidden="true" className="size-5" />}
        Sign in with a passkey
      </Button>
      <Button variant="ghost" className="w-full" disabled={busy !== null} onClick={() => void run('signUp')}>
        {busy === 'signUp' ? <Spinner /> : <UserPlus aria-hidden="true" className="size-4" />}
        New here? Create an account with a passkey
      </Button>
    </div>
  );
}
