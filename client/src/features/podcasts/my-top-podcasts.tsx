import type { UserPodcastEntry } from '@shared/schemas/podcasts';
import { Eye, EyeOff, FileUp, Music2, RotateCw, Search, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { useLibrary, useRemovePodcast, useSetPodcastHidden } from './podcast-queries';

/** Where a show came from, in the words of the person who put it there. */
const SOURCE_LABELS: Record<UserPodcastEntry['source'], string> = {
  spotify: 'From Spotify',
  opml: 'From your podcast app',
  manual: 'Added by you',
};

const SOURCE_CLASSES: Record<UserPodcastEntry['source'], string> = {
  spotify: 'border-spotify/40 text-spotify',
  opml: 'border-amber-400/40 text-amber-300',
  manual: 'border-intent-soft/40 text-intent-soft',
};

export function SourceBadge({ source }: { source: UserPodcastEntry['source'] }) {
  return (
    <span
      className={cn(
        'inline-flex min-h-5 items-center rounded-full border px-2 text-xs font-medium',
        SOURCE_CLASSES[source],
      )}
    >
      {SOURCE_LABELS[source]}
    </span>
  );
}

/** How often the person listened, when a source told us (an import or a search knows nothing of it). */
function timesListenedText(times: number): string | null {
  if (times <= 0) return null;
  return times === 1 ? 'Listened once' : `Listened ${times} times`;
}

interface EntryRowProps {
  entry: UserPodcastEntry;
  onToggleHidden: (entry: UserPodcastEntry) => void;
  onRemove: (entry: UserPodcastEntry) => void;
  removing: boolean;
}

function EntryRow({ entry, onToggleHidden, onRemove, removing }: EntryRowProps) {
  const [confirming, setConfirming] = useState(false);
  const { name, creator, imageUrl } = entry.podcast;
  return (
    <li
      data-testid="library-entry"
      data-hidden={entry.hidden}
      className="rounded-2xl border border-white/10 bg-white/[0.03] p-3 transition-colors"
    >
      <div className="flex items-center gap-3">
        <PodcastArtwork name={name} imageUrl={imageUrl} className={cn(entry.hidden && 'opacity-40 grayscale')} />
        <div className={cn('min-w-0 flex-1', entry.hidden && 'opacity-60')}>
          {/* Two lines, then the rest in the tooltip; words longer than the row break. */}
          <p title={name} className="line-clamp-2 text-sm font-semibold break-words text-white">
            {name}
          </p>
          {creator ? (
            <p title={creator} className="truncate text-xs text-zinc-400">
              {creator}
            </p>
          ) : null}
          <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500">
            {timesListenedText(entry.timesListened) ? <span>{timesListenedText(entry.timesListened)}</span> : null}
            <SourceBadge source={entry.source} />
            {entry.hidden ? <span className="font-medium text-zinc-400">Hidden</span> : null}
          </div>
        </div>
        <Button
          variant="ghost"
          size="icon"
          className="shrink-0"
          aria-label={entry.hidden ? `Show ${name}` : `Hide ${name}`}
          title={entry.hidden ? 'Hidden from your profile: show it' : 'Visible on your profile: hide it'}
          onClick={() => onToggleHidden(entry)}
        >
          {entry.hidden ? (
            <EyeOff aria-hidden="true" className="size-5" />
          ) : (
            <Eye aria-hidden="true" className="size-5" />
          )}
        </Button>
        <Button
          variant="ghost"
          size="icon"
          className="shrink-0"
          aria-label={`Remove ${name}`}
          aria-expanded={confirming}
          disabled={removing}
          onClick={() => setConfirming((open) => !open)}
        >
          {removing ? <Spinner className="size-5" /> : <Trash2 aria-hidden="true" className="size-5" />}
        </Button>
      </div>
      {confirming ? (
        <fieldset
          aria-label={`Confirm removing ${name}`}
          className="mt-3 flex flex-wrap items-center justify-between gap-2 rounded-xl bg-red-500/10 p-2 pl-3 text-sm"
        >
          <span className="text-red-100">Remove from your library?</span>
          <span className="ml-auto flex gap-2">
            <Button variant="ghost" size="sm" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              size="sm"
              onClick={() => {
                setConfirming(false);
                onRemove(entry);
              }}
            >
              Remove
            </Button>
          </span>
        </fieldset>
      ) : null}
    </li>
  );
}

function LibrarySkeleton() {
  return (
    <div role="status" aria-label="Loading podcasts" className="grid gap-2">
      {[0, 1, 2].map((i) => (
        <div key={i} className="flex animate-pulse items-center gap-3 rounded-2xl border border-white/5 p-3">
          <div className="size-12 rounded-xl bg-white/[0.08]" />
          <div className="grid flex-1 gap-2">
            <div className="h-3 w-2/3 rounded bg-white/[0.08]" />
            <div className="h-3 w-1/3 rounded bg-white/[0.06]" />
          </div>
        </div>
      ))}
    </div>
  );
}

function EmptyLibrary() {
  return (
    <div data-testid="library-empty" className="rounded-2xl border border-dashed border-white/15 p-5 text-sm">
      <p className="font-semibold text-white">No podcasts yet</p>
      <p className="mt-1 text-zinc-400">Your podcasts decide who you match with. Add them in any of three ways:</p>
      <ul className="mt-3 grid gap-2 text-zinc-300">
        <li className="flex gap-2">
          <Music2 aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-spotify" />
          Connect Spotify and your saved shows come in by themselves.
        </li>
        <li className="flex gap-2">
          <FileUp aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-amber-300" />
          Import an OPML file exported from your podcast app.
        </li>
        <li className="flex gap-2">
          <Search aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-intent-soft" />
          Search the catalog below and add shows one by one.
        </li>
      </ul>
    </div>
  );
}

/** The own-profile 'My Top Podcasts' list: visibility toggle, remove, source; most listened first. */
export function MyTopPodcasts({ userId }: { userId: number }) {
  const library = useLibrary(userId);
  const setHidden = useSetPodcastHidden(userId);
  const remove = useRemovePodcast(userId);

  if (library.isPending) return <LibrarySkeleton />;
  if (library.isError) {
    return (
      <div role="alert" className="rounded-2xl border border-red-500/30 bg-red-500/5 p-4 text-sm">
        <p className="font-semibold text-red-100">Couldn't load your podcasts</p>
        <p className="mt-1 text-red-200/80">{errorMessage(library.error, 'Please try again.')}</p>
        <Button
          variant="outline"
          size="sm"
          className="mt-3"
          onClick={() => void library.refetch()}
          disabled={library.isFetching}
        >
          {library.isFetching ? <Spinner /> : <RotateCw aria-hidden="true" className="size-4" />}
          Retry
        </Button>
      </div>
    );
  }
  if (library.data.length === 0) return <EmptyLibrary />;

  return (
    <ul aria-label="My podcasts" className="grid gap-2">
      {library.data.map((entry) => (
        <EntryRow
          key={entry.id}
          entry={entry}
          onToggleHidden={(e) => setHidden.mutate({ entry: e, hidden: !e.hidden })}
          onRemove={(e) => remove.mutate(e)}
          removing={remove.isPending && remove.variables?.id === entry.id}
        />
      ))}
    </ul>
  );
}
