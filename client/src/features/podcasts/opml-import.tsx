import { isJobFinished, type JobStatusEvent, jobErrorText } from '@shared/events';
import type { OpmlImportResult } from '@shared/schemas/podcasts';
import { useQueryClient } from '@tanstack/react-query';
import { FileUp } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useJobStatus } from '@/lib/socket';
import { toast } from '@/lib/toast';
import { libraryQuery, OPML_ACCEPT, OPML_MAX_BYTES, opmlErrorMessage, useImportOpml } from './podcast-queries';

/** Stop waiting for job events after this long (socket down, worker busy): refetch and move on. */
const SYNC_WATCH_TIMEOUT_MS = 3 * 60_000;

type JobProgress = Pick<JobStatusEvent<'podcasts.sync'>, 'state' | 'progress'>;

function formatSize(bytes: number): string {
  // Rounded up, so a file just over the limit never reads as '1.0 MB'.
  return `${(Math.ceil((bytes / (1024 * 1024)) * 10) / 10).toFixed(1)} MB`;
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The toast after a successful upload, e.g. 'Imported 12 podcasts — reading their feeds…'. */
export function importResultToast(result: OpmlImportResult): { title: string; description?: string } {
  const notes: string[] = [];
  if (result.alreadyInLibrary > 0) {
    notes.push(
      `${plural(result.alreadyInLibrary, 'podcast')} ${result.alreadyInLibrary === 1 ? 'was' : 'were'} already in your library.`,
    );
  }
  if (result.skipped > 0)
    notes.push(`${plural(result.skipped, 'entry', 'entries')} without a usable feed URL skipped.`);
  // A limit left feeds out (docs/podcasts.md, "Limits"): the server says which, in a sentence.
  if (result.limitNote) notes.push(result.limitNote);
  const description = notes.length > 0 ? notes.join(' ') : undefined;
  if (result.feeds === 0) return { title: 'No podcasts found in that file', description };
  const reading = result.jobIds.length > 0 ? ' — reading their feeds…' : '';
  if (result.added === 0) return { title: `No new podcasts in that file${reading}`, description };
  return { title: `Imported ${plural(result.added, 'podcast')}${reading}`, description };
}

/**
 * Follows the 'podcasts.sync' jobs of an import through 'job:status' events for the progress bar
 * (the realtime bridge refetches the library as each finishes). Events that arrive before the
 * upload answer are remembered.
 */
function useFeedSyncProgress(userId: number) {
  const queryClient = useQueryClient();
  const [jobs, setJobs] = useState<Record<string, JobProgress>>({});
  const early = useRef(new Map<string, JobProgress>());

  const refetchLibrary = useCallback(
    () => void queryClient.invalidateQueries({ queryKey: libraryQuery(userId).queryKey }),
    [queryClient, userId],
  );

  const tracked = useRef<Record<string, JobProgress>>({});
  useEffect(() => {
    tracked.current = jobs;
  });

  useJobStatus('podcasts.sync', (event) => {
    const update = { state: event.state, progress: event.progress };
    if (!(event.jobId in tracked.current)) {
      early.current.set(event.jobId, update);
      if (early.current.size > 50) early.current.delete(early.current.keys().next().value as string);
      return;
    }
    setJobs((current) => (event.jobId in current ? { ...current, [event.jobId]: update } : current));
    if (event.state === 'failed') {
      toast({ variant: 'destructive', title: 'Some feeds could not be read', description: jobErrorText(event) });
    }
  });

  const track = useCallback((jobIds: string[]) => {
    const next: Record<string, JobProgress> = {};
    for (const id of jobIds) next[id] = early.current.get(id) ?? { state: 'queued', progress: 0 };
    tracked.current = next;
    setJobs(next);
  }, []);

  const ids = Object.keys(jobs);
  const active = ids.length > 0 && !ids.every((id) => isJobFinished(jobs[id] as JobProgress));
  const progress =
    ids.length === 0
      ? 0
      : Math.round(
          ids.reduce((sum, id) => {
            const job = jobs[id] as JobProgress;
            return sum + (isJobFinished(job) ? 100 : job.progress);
          }, 0) / ids.length,
        );

  // All done: forget the jobs.
  useEffect(() => {
    if (ids.length === 0 || active) return;
    setJobs({});
  }, [ids.length, active]);

  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => {
      refetchLibrary();
      setJobs({});
    }, SYNC_WATCH_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [active, refetchLibrary]);

  return { track, active, progress, total: ids.length };
}

/** 'Import OPML': pick a file, check its size, upload it, then follow the feed reading. */
export function OpmlImport({ userId }: { userId: number }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const errorId = useId();
  const [error, setError] = useState<string | null>(null);
  const upload = useImportOpml(userId);
  const sync = useFeedSyncProgress(userId);

  const onFile = (file: File | undefined) => {
    if (!file) return;
    setError(null);
    if (file.size > OPML_MAX_BYTES) {
      setError(`${file.name} is ${formatSize(file.size)}: OPML files can be at most 1 MB.`);
      return;
    }
    if (file.size === 0) {
      setError('That file is empty. Export your subscriptions from your podcast app as OPML and try again.');
      return;
    }
    upload.mutate(file, {
      onSuccess: (result) => {
        toast(importResultToast(result));
        sync.track(result.jobIds);
      },
      onError: (err) => {
        const message = opmlErrorMessage(err);
        setError(message);
        toast({ variant: 'destructive', title: 'Import failed', description: message });
      },
    });
  };

  return (
    <div className="grid gap-2">
      <input
        ref={inputRef}
        type="file"
        accept={OPML_ACCEPT}
        className="hidden"
        data-testid="opml-file-input"
        aria-label="OPML file"
        tabIndex={-1}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          // Cleared so choosing the same file again fires change again.
          event.currentTarget.value = '';
          onFile(file);
        }}
      />
      <Button
        variant="outline"
        size="sm"
        disabled={upload.isPending}
        aria-describedby={error ? errorId : undefined}
        onClick={() => inputRef.current?.click()}
      >
        {upload.isPending ? <Spinner /> : <FileUp aria-hidden="true" className="size-4" />}
        {upload.isPending ? 'Importing…' : 'Import OPML'}
      </Button>
      {error ? (
        <p id={errorId} role="alert" className="text-xs text-red-300">
          {error}
        </p>
      ) : null}
      {sync.active ? (
        <div role="status" aria-live="polite" className="grid gap-1 text-xs text-zinc-400">
          <span className="flex items-center gap-1.5">
            <Spinner className="size-3" />
            Reading feeds… {sync.progress}%
          </span>
          <progress
            aria-label="Reading podcast feeds"
            max={100}
            value={sync.progress}
            className="h-1 w-full overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-white/10 [&::-webkit-progress-value]:bg-intent"
          />
        </div>
      ) : null}
    </div>
  );
}
