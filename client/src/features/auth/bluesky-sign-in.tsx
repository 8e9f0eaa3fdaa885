import { AtSign } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/http';
import { preloadAuthRequests } from './use-dev-login';

/** "Continue with Bluesky": the handle, then the person's Bluesky server to approve; back to /login. */
export function BlueskySignIn() {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [handle, setHandle] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const typed = handle.trim().replace(/^@/, '');
    if (!typed) {
      setProblem('Enter your Bluesky handle, for example alex.bsky.social.');
      return;
    }
    setBusy(true);
    setProblem(null);
    try {
      const url = await (await preloadAuthRequests()).requestBlueskySignIn(typed);
      window.location.assign(url);
    } catch (error) {
      setProblem(
        error instanceof ApiError && error.serverMessage
          ? error.serverMessage
          : 'Bluesky could not be reached. Please try again.',
      );
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <Button variant="outline" size="lg" className="w-full" onClick={() => setOpen(true)}>
        <AtSign aria-hidden="true" className="size-5 text-sky-400" />
        Continue with Bluesky
      </Button>
    );
  }
  return (
    <form className="grid gap-2" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-handle`} className="text-sm text-zinc-300">
        Your Bluesky handle
      </label>
      <Input
        id={`${id}-handle`}
        name="bluesky-handle"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        autoFocus
        placeholder="alex.bsky.social"
        value={handle}
        onChange={(event) => {
          setHandle(event.target.value);
          setProblem(null);
        }}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
      />
      <p id={`${id}-problem`} role="alert" className="text-xs text-red-300">
        {problem}
      </p>
      <Button type="submit" variant="outline" size="lg" className="w-full" disabled={busy} aria-busy={busy}>
        {busy ? <Spinner /> : <AtSign aria-hidden="true" className="size-5 text-sky-400" />}
        {busy ? 'Opening Bluesky...' : 'Continue with Bluesky'}
      </Button>
    </form>
  );
}
