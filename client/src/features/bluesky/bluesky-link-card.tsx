import { BLUESKY_TEXTS, BlueskyHandleSchema, type BlueskyReturnPage } from '@shared/schemas/bluesky';
import { AtSign, Unlink } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { ConnectionCard } from '@/components/connection-card';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/http';
import { toast } from '@/lib/toast';
import { useReturnParams } from '@/lib/use-return-params';
import { BlueskyBadge } from './bluesky-badge';
import { useBlueskyStatus, useFinishBluesky, useLinkBluesky, useUnlinkBluesky } from './bluesky-queries';

/** Why a callback came back without a link (`?bluesky_error=`). */
const CALLBACK_ERRORS: Record<string, string> = {
  failed: BLUESKY_TEXTS.failed,
  not_claimed: BLUESKY_TEXTS.notClaimed,
  other_browser: BLUESKY_TEXTS.otherBrowser,
  unavailable: 'Linking Bluesky is not set up on this server yet.',
};

/** After the round trip: ?bluesky_link=<code> is claimed by this account, ?bluesky_error= toasts; both once. */
function useLinkOutcome(userId: number) {
  const finish = useFinishBluesky(userId);
  useReturnParams('bluesky_link', 'bluesky_error', ({ code, error }) => {
    if (error) {
      toast({
        variant: 'destructive',
        title: 'Bluesky link failed',
        description: CALLBACK_ERRORS[error] ?? BLUESKY_TEXTS.failed,
      });
    } else if (code) {
      finish.mutate(code);
    }
  });
}

/** Link a Bluesky (AT Protocol) identity: matches then see the handle as a verified badge. */
export function BlueskyLinkCard({
  userId,
  returnPage = 'profile',
}: {
  userId: number;
  /** The screen it is on, which the approval returns to (the setup wizard's step 4, or the profile). */
  returnPage?: BlueskyReturnPage;
}) {
  useLinkOutcome(userId);
  const { data: status, isPending, isError } = useBlueskyStatus(userId);
  const link = useLinkBluesky(userId, returnPage);
  const unlink = useUnlinkBluesky(userId);
  const [handle, setHandle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const problemId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = BlueskyHandleSchema.safeParse(handle);
    if (!parsed.success) {
      setProblem(parsed.error.issues[0]?.message ?? 'Enter your Bluesky handle.');
      return;
    }
    setProblem(null);
    link.mutate(parsed.data, { onError: (error) => setProblem(errorMessage(error, BLUESKY_TEXTS.failed)) });
  };

  return (
    <ConnectionCard
      name="Bluesky"
      testId="bluesky"
      icon={<AtSign aria-hidden="true" className="size-6" />}
      iconClassName="bg-sky-500/15 text-sky-300"
      state={
        isPending
          ? 'Checking link...'
          : isError
            ? 'Could not load the link.'
            : status.linked
              ? status.handle
                ? `Linked as @${status.handle}`
                : 'Linked'
              : 'Not linked'
      }
    >
      {status?.message ? <p className="mt-3 text-sm text-amber-200">{status.message}</p> : null}

      {status?.linked ? (
        <div className="mt-4 flex flex-wrap items-center justify-between gap-2">
          {status.handle && status.did ? <BlueskyBadge handle={status.handle} did={status.did} /> : <span />}
          <Button variant="destructive" size="sm" onClick={() => unlink.mutate()} disabled={unlink.isPending}>
            {unlink.isPending ? <Spinner /> : <Unlink aria-hidden="true" className="size-4" />}
            Unlink
          </Button>
        </div>
      ) : null}

      {status && !status.linked && status.available ? (
        <form className="mt-4 grid gap-2" onSubmit={submit} noValidate>
          <p className="text-sm text-zinc-400">
            Show your matches a verified Bluesky handle. You approve it on your own Bluesky server; we never see your
            password.
          </p>
          <label htmlFor={inputId} className="text-sm font-medium text-zinc-200">
            Your Bluesky handle
          </label>
          <Input
            id={inputId}
            name="handle"
            value={handle}
            onChange={(event) => setHandle(event.target.value)}
            placeholder="ada.bsky.social"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={254}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? problemId : undefined}
          />
          {problem ? (
            <p id={problemId} role="alert" className="text-sm text-red-300">
              {problem}
            </p>
          ) : null}
          <Button type="submit" disabled={link.isPending}>
            {link.isPending ? <Spinner /> : null}
            Link Bluesky
          </Button>
        </form>
      ) : null}
    </ConnectionCard>
  );
}
