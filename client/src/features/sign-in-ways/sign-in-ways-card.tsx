import { EMAIL_CODE_LENGTH, PASSKEY_NAME_MAX_LENGTH, type SignInWay, type SignInWays } from '@shared/schemas/sign-in';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AtSign, KeyRound, Mail, Music2, Plus, ShieldCheck, Terminal } from 'lucide-react';
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { CodeField, codeProblem } from '@/components/code-field';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { ApiError, errorMessage } from '@/lib/http';
import { passkeyProblem } from '@/lib/passkey-problem';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast';
import { ConfirmItIsYou } from './confirm-it-is-you';
import {
  addPasskey,
  finishEmailLink,
  removeWay,
  renamePasskey,
  signInWaysQuery,
  startEmailLink,
} from './sign-in-ways-requests';

const ICONS: Record<SignInWay['kind'], ReactNode> = {
  passkey: <KeyRound aria-hidden="true" className="size-4" />,
  email: <Mail aria-hidden="true" className="size-4" />,
  bluesky: <AtSign aria-hidden="true" className="size-4 text-sky-400" />,
  spotify: <Music2 aria-hidden="true" className="size-4 text-spotify" />,
  devLogin: <Terminal aria-hidden="true" className="size-4 text-amber-300" />,
};

const KIND_NAMES: Record<SignInWay['kind'], string> = {
  passkey: 'Passkey',
  email: 'Email code',
  bluesky: 'Bluesky',
  spotify: 'Spotify',
  devLogin: 'Development login',
};

/** What needs a fresh confirmation first; run once it is given. */
type Guarded = { label: string; run: () => Promise<void> | void };

const isFresh = (ways: SignInWays | undefined) =>
  Boolean(ways?.freshUntil && new Date(ways.freshUntil).getTime() > Date.now() + 5_000);

function detailOf(way: SignInWay): string {
  const parts: string[] = [KIND_NAMES[way.kind]];
  if (way.kind === 'passkey' && way.backedUp) parts.push('synced');
  if (way.lastUsedAt) parts.push(`last used ${relativeTime(way.lastUsedAt)}`);
  else if (way.createdAt) parts.push(`added ${relativeTime(way.createdAt)}`);
  return parts.join(' · ');
}

/**
 * "Ways to sign in" on the profile (docs/auth.md): every way into this account; passkeys can be
 * added, renamed and removed, an email added or changed; never the last way in. Adding or removing
 * asks "Confirm it's you" unless the person proved it in the last minutes.
 */
export function SignInWaysCard({ userId, passkeys, email }: { userId: number; passkeys: boolean; email: boolean }) {
  const id = useId();
  const queryClient = useQueryClient();
  const query = useQuery(signInWaysQuery(userId));
  const ways = query.data;
  const [confirming, setConfirming] = useState<Guarded | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ wayId: number; name: string } | null>(null);
  const [emailStep, setEmailStep] = useState<{ address: string; sentTo: string | null; code: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const show = (next: SignInWays | null | undefined) => {
    if (next) queryClient.setQueryData(signInWaysQuery(userId).queryKey, next);
    else void queryClient.invalidateQueries({ queryKey: signInWaysQuery(userId).queryKey });
  };

  /** Runs `action`, asking for a confirmation first when needed (or when the server says so). */
  const guarded = (guard: Guarded) => {
    setProblem(null);
    if (!isFresh(ways)) {
      setConfirming(guard);
      return;
    }
    void attempt(guard);
  };

  const attempt = async (guard: Guarded) => {
    setBusy(guard.label);
    try {
      await guard.run();
    } catch (error) {
      if (
        error instanceof ApiError &&
        error.status === 403 &&
        (error.body as { error?: string })?.error === 'reauth_required'
      ) {
        setConfirming(guard);
      } else {
        setProblem(passkeyProblem(error, 'That did not work. Please try again.'));
      }
    } finally {
      setBusy(null);
    }
  };

  const addOnePasskey: Guarded = {
    label: 'add-passkey',
    run: async () => {
      show(await addPasskey(userId));
      toast({ title: 'Passkey added', description: 'You can now sign in with it on this device.' });
    },
  };

  const remove = (way: SignInWay) =>
    guarded({
      label: `remove-${way.id}`,
      run: async () => {
        if (way.id === null) return;
        show(await removeWay(userId, way.id));
        toast({ title: `${KIND_NAMES[way.kind]} removed`, description: `${way.label} no longer signs you in.` });
      },
    });

  const submitRename = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!renaming) return;
    const name = renaming.name.trim();
    if (!name) {
      setProblem('Give the passkey a name.');
      return;
    }
    setBusy(`rename-${renaming.wayId}`);
    try {
      show(await renamePasskey(userId, renaming.wayId, name));
      setRenaming(null);
      setProblem(null);
    } catch (error) {
      setProblem(errorMessage(error, 'The name was not saved. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const sendEmailCode = (address: string) =>
    guarded({
      label: 'email-send',
      run: async () => {
        await startEmailLink(userId, address.trim());
        setEmailStep({ address, sentTo: address.trim(), code: '' });
      },
    });

  const submitEmail = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!emailStep) return;
    if (!emailStep.sentTo) {
      if (!emailStep.address.trim()) {
        setProblem('Enter the email address to add.');
        return;
      }
      sendEmailCode(emailStep.address);
      return;
    }
    const shapeProblem = codeProblem(emailStep.code);
    if (shapeProblem) {
      setProblem(shapeProblem);
      return;
    }
    setBusy('email-verify');
    try {
      show(await finishEmailLink(userId, emailStep.sentTo, emailStep.code));
      toast({ title: 'Email saved', description: `${emailStep.sentTo} now signs you in with a code.` });
      setEmailStep(null);
      setProblem(null);
    } catch (error) {
      setProblem(errorMessage(error, 'That code did not work. Please try again.'));
    } finally {
      setBusy(null);
    }
  };

  const list = ways?.ways ?? [];
  const hasEmail = list.some((way) => way.kind === 'email');
  const removable = list.filter((way) => way.id !== null).length > 1;

  return (
    <section
      aria-labelledby={`${id}-title`}
      data-testid="sign-in-ways-card"
      className="min-w-0 rounded-3xl border border-white/10 bg-white/[0.03] p-5 shadow-xl shadow-black/20"
    >
      <div className="mb-1 flex items-center gap-3">
        <span className="grid size-9 shrink-0 place-items-center rounded-xl bg-intent/15 text-intent-soft">
          <ShieldCheck aria-hidden="true" className="size-5" />
        </span>
        <h2 id={`${id}-title`} className="min-w-0 flex-1 text-base font-semibold text-white">
          Ways to sign in
        </h2>
      </div>
      <p className="mb-4 text-xs text-zinc-400">Keep two, so a lost phone never locks you out.</p>

      {query.isPending ? (
        <div role="status" aria-label="Loading ways to sign in" className="grid place-items-center py-4">
          <Spinner className="size-5 text-zinc-300" />
        </div>
      ) : query.isError ? (
        <p role="alert" className="text-sm text-red-300">
          Your ways to sign in could not be loaded. Please try again later.
        </p>
      ) : (
        <ul className="grid gap-2" aria-label="Your ways to sign in">
          {list.map((way) => (
            <li
              key={`${way.kind}-${way.id ?? 'dev'}`}
              data-testid="sign-in-way"
              className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 rounded-2xl bg-white/[0.03] px-3 py-2"
            >
              <span className="grid size-8 shrink-0 place-items-center rounded-xl bg-white/[0.06] text-zinc-200">
                {ICONS[way.kind]}
              </span>
              {renaming && renaming.wayId === way.id ? (
                <form className="flex min-w-0 flex-1 items-center gap-2" onSubmit={submitRename}>
                  <Input
                    aria-label="Passkey name"
                    className="h-9"
                    autoFocus
                    maxLength={PASSKEY_NAME_MAX_LENGTH}
                    value={renaming.name}
                    onChange={(event) => setRenaming({ ...renaming, name: event.target.value })}
                  />
                  <Button type="submit" size="sm" disabled={busy !== null}>
                    Save
                  </Button>
                  <Button variant="ghost" size="sm" onClick={() => setRenaming(null)}>
                    Cancel
                  </Button>
                </form>
              ) : (
                <>
                  {/* At least 9rem for the name: the buttons go to a line of their own on a phone. */}
                  <div className="min-w-[9rem] flex-1">
                    <p className="truncate text-sm font-medium text-zinc-100" title={way.label}>
                      {way.label}
                    </p>
                    <p className="truncate text-xs text-zinc-400">{detailOf(way)}</p>
                  </div>
                  <div className="ml-auto flex gap-1">
                    {way.kind === 'passkey' && way.id !== null ? (
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-label={`Rename ${way.label}`}
                        onClick={() => setRenaming({ wayId: way.id as number, name: way.label })}
                      >
                        Rename
                      </Button>
                    ) : null}
                    {(way.kind === 'passkey' || way.kind === 'email') && removable ? (
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-label={`Remove ${way.label}`}
                        disabled={busy !== null}
                        onClick={() => remove(way)}
                      >
                        {busy === `remove-${way.id}` ? <Spinner /> : null}
                        Remove
                      </Button>
                    ) : null}
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}

      {ways && !removable ? (
        <p className="mt-3 text-xs text-zinc-400">
          This is your only way in, so it cannot be removed. Add another first.
        </p>
      ) : null}

      {emailStep ? (
        <form className="mt-4 grid gap-2" onSubmit={submitEmail} noValidate>
          {emailStep.sentTo ? (
            <>
              <label htmlFor={`${id}-email-code`} className="text-xs text-zinc-300">
                The {EMAIL_CODE_LENGTH}-digit code we sent to {emailStep.sentTo}
              </label>
              <CodeField
                id={`${id}-email-code`}
                value={emailStep.code}
                onValueChange={(code) => setEmailStep({ ...emailStep, code })}
              />
            </>
          ) : (
            <>
              <label htmlFor={`${id}-email`} className="text-xs text-zinc-300">
                {hasEmail ? 'New email address' : 'Email address'}
              </label>
              <Input
                id={`${id}-email`}
                type="email"
                autoComplete="email"
                value={emailStep.address}
                onChange={(event) => setEmailStep({ ...emailStep, address: event.target.value })}
              />
            </>
          )}
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={busy !== null}>
              {busy === 'email-send' || busy === 'email-verify' ? <Spinner /> : null}
              {emailStep.sentTo ? 'Confirm code' : 'Send code'}
            </Button>
            <Button variant="ghost" size="sm" onClick={() => setEmailStep(null)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : null}

      {confirming && ways ? (
        <ConfirmItIsYou
          ways={ways.ways}
          onCancel={() => setConfirming(null)}
          onConfirmed={() => {
            const next = confirming;
            setConfirming(null);
            // The server now counts this login as fresh; the action's answer brings the new list
            // and its freshUntil (a read started now could land after it with the old list).
            void attempt(next);
          }}
        />
      ) : null}

      <p role="alert" data-testid="sign-in-ways-problem" className="mt-3 text-xs text-red-300 empty:hidden">
        {problem}
      </p>

      {ways && !confirming && !emailStep ? (
        <div className="mt-4 flex flex-wrap gap-2">
          {passkeys ? (
            <Button variant="outline" size="sm" disabled={busy !== null} onClick={() => guarded(addOnePasskey)}>
              {busy === 'add-passkey' ? <Spinner /> : <Plus aria-hidden="true" className="size-4" />}
              Add a passkey
            </Button>
          ) : null}
          {email ? (
            <Button
              variant="outline"
              size="sm"
              disabled={busy !== null}
              onClick={() => setEmailStep({ address: '', sentTo: null, code: '' })}
            >
              <Mail aria-hidden="true" className="size-4" />
              {hasEmail ? 'Change email' : 'Add an email'}
            </Button>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
