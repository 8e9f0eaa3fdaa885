import { EMAIL_CODE_LENGTH, type SignInWay } from '@shared/schemas/sign-in';
import { KeyRound, Mail, ShieldCheck } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { CodeField, codeProblem } from '@/components/code-field';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/http';
import { passkeyProblem } from '@/lib/passkey-problem';
import { confirmWithCode, confirmWithPasskey, sendConfirmationCode } from './sign-in-ways-requests';

/**
 * "Confirm it's you" before a way in is added or removed: a passkey of this account or a code sent
 * to its address; without either, it says what to do instead (sign in again).
 */
export function ConfirmItIsYou({
  ways,
  onConfirmed,
  onCancel,
}: {
  ways: SignInWay[];
  onConfirmed: () => void;
  onCancel: () => void;
}) {
  const id = useId();
  const hasPasskey = ways.some((way) => way.kind === 'passkey');
  const email = ways.find((way) => way.kind === 'email')?.label;
  const [busy, setBusy] = useState<'passkey' | 'send' | 'code' | null>(null);
  const [codeSent, setCodeSent] = useState(false);
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const run = async (kind: 'passkey' | 'send' | 'code', action: () => Promise<unknown>, after?: () => void) => {
    setBusy(kind);
    setProblem(null);
    try {
      await action();
      after?.();
    } catch (error) {
      setProblem(
        kind === 'passkey'
          ? passkeyProblem(error, 'That did not work. Please try again.')
          : errorMessage(error, 'That did not work. Please try again.'),
      );
    } finally {
      setBusy(null);
    }
  };

  const submitCode = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const shapeProblem = codeProblem(code);
    if (shapeProblem) {
      setProblem(shapeProblem);
      return;
    }
    void run('code', () => confirmWithCode(code), onConfirmed);
  };

  return (
    <fieldset
      aria-labelledby={`${id}-title`}
      data-testid="confirm-it-is-you"
      className="mt-4 grid min-w-0 gap-3 rounded-2xl border border-intent/30 bg-intent/5 p-4"
    >
      <div className="flex items-center gap-2">
        <ShieldCheck aria-hidden="true" className="size-5 text-intent-soft" />
        <h3 id={`${id}-title`} className="text-sm font-semibold text-white">
          Confirm it's you
        </h3>
      </div>
      <p className="text-xs text-zinc-300">
        Changing how you sign in needs a fresh confirmation, so someone holding your unlocked phone cannot take over
        your account.
      </p>
      {hasPasskey ? (
        <Button size="sm" disabled={busy !== null} onClick={() => void run('passkey', confirmWithPasskey, onConfirmed)}>
          {busy === 'passkey' ? <Spinner /> : <KeyRound aria-hidden="true" className="size-4" />}
          Use a passkey
        </Button>
      ) : null}
      {email && !codeSent ? (
        <Button
          variant="outline"
          size="sm"
          disabled={busy !== null}
          onClick={() => void run('send', sendConfirmationCode, () => setCodeSent(true))}
        >
          {busy === 'send' ? <Spinner /> : <Mail aria-hidden="true" className="size-4" />}
          Email a code to {email}
        </Button>
      ) : null}
      {codeSent ? (
        <form className="grid gap-2" onSubmit={submitCode} noValidate>
          <label htmlFor={`${id}-code`} className="text-xs text-zinc-300">
            The {EMAIL_CODE_LENGTH}-digit code we sent to {email}
          </label>
          <CodeField
            id={`${id}-code`}
            value={code}
            onValueChange={(digits) => {
              setCode(digits);
              setProblem(null);
            }}
          />
          <Button type="submit" size="sm" disabled={busy !== null}>
            {busy === 'code' ? <Spinner /> : null}
            Confirm
          </Button>
        </form>
      ) : null}
      {!hasPasskey && !email ? (
        <p className="text-xs text-zinc-300">
          Your account has no passkey or email to confirm with. Log out and sign in again, then come back here within 10
          minutes.
        </p>
      ) : null}
      <p role="alert" className="text-xs text-red-300 empty:hidden">
        {problem}
      </p>
      <Button variant="ghost" size="sm" onClick={onCancel}>
        Cancel
      </Button>
    </fieldset>
  );
}
