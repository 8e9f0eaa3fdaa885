import type { PodcastSummary } from '@shared/schemas/podcasts';
import { Check, Plus, Search } from 'lucide-react';
import { type KeyboardEvent, useId, useMemo, useRef, useState } from 'react';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { SEARCH_DEBOUNCE_MS, useAddPodcast, useDebouncedValue, useLibrary, usePodcastSearch } from './podcast-queries';

/** Moves focus between the enabled Add buttons of the results (and back to the input) with the arrow keys. */
function moveFocus(list: HTMLElement | null, input: HTMLInputElement | null, event: KeyboardEvent<HTMLElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const buttons = Array.from(
    list?.querySelectorAll<HTMLButtonElement>('button[data-result-button]:not(:disabled)') ?? [],
  );
  if (buttons.length === 0) return;
  event.preventDefault();
  const from = buttons.indexOf(event.currentTarget as HTMLButtonElement);
  const next = event.key === 'ArrowDown' ? Math.min(from + 1, buttons.length - 1) : from - 1;
  if (next < 0) input?.focus();
  else buttons[next]?.focus();
}

/** Search the catalog (typo tolerant, debounced) and add shows to the library. */
export function PodcastSearch({ userId }: { userId: number }) {
  const [text, setText] = useState('');
  const q = useDebouncedValue(text.trim(), SEARCH_DEBOUNCE_MS);
  const search = usePodcastSearch(q);
  const library = useLibrary(userId);
  const add = useAddPodcast(userId);
  const inputId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);

  const inLibrary = useMemo(() => new Set(library.data?.map((entry) => entry.podcastId)), [library.data]);
  const typing = text.trim() !== q;
  const results = q ? search.data : undefined;

  const onAdd = (podcast: PodcastSummary) => {
    if (inLibrary.has(podcast.id) || add.isPending) return;
    add.mutate(podcast);
  };

  return (
    <div className="grid gap-3">
      <label htmlFor={inputId} className="text-sm font-semibold text-white">
        Add podcasts
      </label>
      <div className="relative">
        <Search
          aria-hidden="true"
          className="pointer-events-none absolute top-1/2 left-4 size-4 -translate-y-1/2 text-zinc-500"
        />
        <Input
          ref={inputRef}
          id={inputId}
          type="search"
          role="searchbox"
          autoComplete="off"
          maxLength={100}
          placeholder="Search podcasts by name"
          className="pr-10 pl-10"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => moveFocus(listRef.current, inputRef.current, event)}
        />
        {q && (typing || search.isFetching) ? (
          <Spinner className="absolute top-1/2 right-4 -translate-y-1/2 text-zinc-400" />
        ) : null}
      </div>

      {q && search.isError ? (
        <p role="alert" className="text-sm text-red-300">
          Search failed: {errorMessage(search.error, 'please try again.')}
        </p>
      ) : null}

      {results && results.length === 0 && !search.isFetching && !typing ? (
        <p className="text-sm text-zinc-400">No podcasts match “{q}”. Try another spelling or a shorter name.</p>
      ) : null}

      {results && results.length > 0 ? (
        <ul ref={listRef} aria-label="Search results" className="grid gap-2">
          {results.map((podcast) => {
            const added = inLibrary.has(podcast.id);
            const adding = add.isPending && add.variables?.id === podcast.id;
            return (
              <li
                key={podcast.id}
                data-testid="search-result"
                className="flex items-center gap-3 rounded-2xl border border-white/10 bg-white/[0.03] p-2.5"
              >
                <PodcastArtwork name={podcast.name} imageUrl={podcast.imageUrl} className="size-10" />
                <div className="min-w-0 flex-1">
                  <p title={podcast.name} className="truncate text-sm font-semibold text-white">
                    {podcast.name}
                  </p>
                  {podcast.creator ? (
                    <p title={podcast.creator} className="truncate text-xs text-zinc-400">
                      {podcast.creator}
                    </p>
                  ) : null}
                </div>
                <Button
                  data-result-button=""
                  className="shrink-0"
                  variant={added ? 'ghost' : 'outline'}
                  size="sm"
                  // The names start with the visible word (WCAG 2.5.3).
                  aria-label={added ? `Added, ${podcast.name} is in your library` : `Add ${podcast.name}`}
                  disabled={added || adding}
                  onClick={() => onAdd(podcast)}
                  onKeyDown={(event) => moveFocus(listRef.current, inputRef.current, event)}
                >
                  {adding ? (
                    <Spinner />
                  ) : added ? (
                    <Check aria-hidden="true" className="size-4" />
                  ) : (
                    <Plus aria-hidden="true" className="size-4" />
                  )}
                  {added ? 'Added' : 'Add'}
                </Button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </div>
  );
}
