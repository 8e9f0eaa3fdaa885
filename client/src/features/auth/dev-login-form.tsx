import { DEV_LOGIN_SUGGESTIONS } from '@shared/constants';
import { Terminal } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { toast } from '@/lib/toast';
import { loginRejection, preloadAuthRequests, useDevLogin } from './use-dev-login';

/** Development login: any username, no password. A suggested name logs in with one click. */
export function DevLoginForm() {
  const inputId = useId();
  const errorId = useId();
  const [username, setUsername] = useState('');
  const [missing, setMissing] = useState(false);
  const login = useDevLogin();
  const pendingName = login.isPending ? login.variables : undefined;
  // What is wrong with the name, under the field: nothing typed, or the server's reason for refusing it.
  const problem = missing ? 'A username is needed to log in.' : loginRejection(login.error);

  const submit = (name: string) => {
    const trimmed = name.trim();
    if (!trimmed) {
      setMissing(true);
      toast({ variant: 'destructive', title: 'Username required', description: 'Please enter a username to continue' });
      return;
    }
    setMissing(false);
    login.mutate(trimmed);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit(username);
  };

  return (
    <section
      aria-labelledby={`${inputId}-title`}
      onPointerEnter={() => void preloadAuthRequests()}
      onFocus={() => void preloadAuthRequests()}
      className="rounded-3xl border border-dashed border-white/15 bg-white/[0.02] p-5"
    >
      <div className="flex items-center gap-2">
        <Terminal aria-hidden="true" className="size-4 text-amber-300" />
        <h2 id={`${inputId}-title`} className="text-sm font-semibold text-white">
          Development mode
        </h2>
        <span className="ml-auto rounded-full bg-amber-300/10 px-2 py-0.5 text-[11px] font-medium text-amber-200">
          no password
        </span>
      </div>

      <p className="mt-3 text-xs text-zinc-400">Log in instantly as a suggested user:</p>
      <ul className="mt-2 flex flex-wrap gap-2">
        {DEV_LOGIN_SUGGESTIONS.map((name) => (
          <li key={name}>
            <Button
              variant="outline"
              size="sm"
              aria-label={`Log in as ${name}`}
              disabled={login.isPending}
              onClick={() => {
                setUsername(name);
                submit(name);
              }}
            >
              {pendingName === name ? <Spinner /> : null}
              {name}
            </Button>
          </li>
        ))}
      </ul>

      <form className="mt-4 grid gap-2" onSubmit={onSubmit} noValidate>
        <label htmlFor={inputId} className="text-xs font-medium text-zinc-300">
          Or choose any username
        </label>
        <Input
          id={inputId}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="e.g. podcast_fan"
          value={username}
          onChange={(event) => {
            setUsername(event.target.value);
            if (missing && event.target.value.trim()) setMissing(false);
            if (login.isError) login.reset();
          }}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? errorId : undefined}
        />
        <p
          id={errorId}
          role={problem ? 'alert' : undefined}
          data-testid="dev-login-problem"
          className={cn('text-xs text-red-300', !problem && 'hidden')}
        >
          {problem}
        </p>
        <Button type="submit" className="mt-1 w-full" disabled={login.isPending}>
          {login.isPending && pendingName === username.trim() ? <Spinner /> : null}
          Login as Developer
        </Button>
      </form>
    </section>
  );
}
