import { EMAIL_CODE_LENGTH } from '@shared/schemas/sign-in';
import { Mail } from 'lucide-react';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { CodeField, codeProblem } from '@/components/code-field';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/http';
import { toast } from '@/lib/toast';
import { useCompleteSignIn } from './use-complete-sign-in';
import { preloadAuthRequests } from './use-dev-login';

/**
 * Email sign-in: an address, then the 6-digit code sent to it. A new address gets an account after
 * its code. With passkeys on, the address field also offers this site's passkeys (autofill).
 */
export function EmailSignIn({ passkeyAutofill }: { passkeyAutofill: boolean }) {
  const id = useId();
  const complete = useCompleteSignIn();
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState<'send' | 'verify' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);
  // The code is the next thing to type: focused as its step appears (also for screen readers).
  useEffect(() => {
    if (sentTo) codeInput.current?.focus();
  }, [sentTo]);

  const send = async (address: string) => {
    if (!address.trim()) {
      setProblem('Enter your email address.');
      return;
    }
    setBusy('send');
    setProblem(null);
    try {
      const sent = await (await preloadAuthRequests()).requestEmailCode(address.trim());
      setSentTo(address.trim());
      setCode('');
      toast({
        title: 'Code sent',
        description: `Check your inbox. The code works for ${sent.expiresInMinutes} minutes.`,
      });
    } catch (error) {
      setProblem(errorMessage(error, 'We could not send a code. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const verify = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!sentTo) return;
    const shapeProblem = codeProblem(code);
    if (shapeProblem) {
      setProblem(shapeProblem);
      return;
    }
    setBusy('verify');
    setProblem(null);
    try {
      complete(await (await preloadAuthRequests()).requestEmailSignIn(sentTo, code));
    } catch (error) {
      setProblem(errorMessage(error, 'That code did not work. Please try again.'));
      setBusy(null);
    }
  };

  const problemId = `${id}-problem`;
  const problemLine = (
    <p id={problemId} role="alert" data-testid="email-sign-in-problem" className="min-h-0 text-xs text-red-300">
      {problem}
    </p>
  );

  if (sentTo) {
    return (
      <form className="grid gap-2" onSubmit={verify} noValidate>
        <label id={`${id}-code-label`} htmlFor={`${id}-code`} className="text-sm text-zinc-300">
          Enter the {EMAIL_CODE_LENGTH}-digit code we sent to <span className="font-semibold text-white">{sentTo}</span>
        </label>
        <CodeField
          ref={codeInput}
          id={`${id}-code`}
          value={code}
          onValueChange={(digits) => {
            setCode(digits);
            setProblem(null);
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? problemId : undefined}
        />
        {problemLine}
        <Button type="submit" size="lg" className="w-full" disabled={busy !== null}>
          {busy === 'verify' ? <Spinner /> : null}
          Continue
        </Button>
        <div className="flex flex-wrap justify-between gap-x-4 text-sm">
          <Button variant="ghost" size="sm" disabled={busy !== null} onClick={() => void send(sentTo)}>
            {busy === 'send' ? <Spinner /> : null}
            Send a new code
          </Button>
          <Button
            variant="ghost"
            size="sm"
            disabled={busy !== null}
            onClick={() => {
              setSentTo(null);
              setProblem(null);
            }}
          >
            Use another email
          </Button>
        </div>
      </form>
    );
  }

  return (
    <form
      className="grid gap-2"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void send(email);
      }}
    >
      <label htmlFor={`${id}-email`} className="text-sm text-zinc-300">
        Email
      </label>
      <Input
        id={`${id}-email`}
        name="email"
        type="email"
        inputMode="email"
        // "webauthn": the browser offers this site's passkeys here too (conditional mediation).
        autoComplete={passkeyAutofill ? 'username webauthn' : 'email'}
        autoCapitalize="none"
        spellCheck={false}
        placeholder="you@example.com"
        value={email}
        onChange={(event) => {
          setEmail(event.target.value);
          setProblem(null);
        }}
        onFocus={() => void preloadAuthRequests()}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
      />
      {problemLine}
      <Button type="submit" variant="outline" size="lg" className="w-full" disabled={busy !== null}>
        {busy === 'send' ? <Spinner /> : <Mail aria-hidden="true" className="size-5" />}
        Email me a sign-in code
      </Button>
    </form>
  );
}
