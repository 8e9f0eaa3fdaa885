import { api } from '@shared/api';
import { LIMITS } from '@shared/constants';
import { PAGE_SIZES } from '@shared/schemas/common';
import type { OpmlImportResult, PodcastSummary, UserPodcastEntry } from '@shared/schemas/podcasts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { allPagesQuery, apiRequest, endpointQuery, errorMessage, uploadRequest } from '@/lib/api-client';
import { toast } from '@/lib/toast';

/** The OPML upload limit (the server refuses bigger files with 413). */
export const OPML_MAX_BYTES = LIMITS.opmlMaxBytes;
/** Search waits this long after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 250;
export const SEARCH_LIMIT = 20;
/** What the hidden file input accepts. */
export const OPML_ACCEPT = '.opml,.xml,text/xml,application/xml,text/x-opml';

/** GET /api/users/:userId/podcasts (the owner also sees hidden entries), keyed by its URL. */
export function libraryQuery(userId: number) {
  return allPagesQuery(api.listUserPodcasts, { params: { userId } }, PAGE_SIZES.library);
}

export function useLibrary(userId: number) {
  return useQuery(libraryQuery(userId));
}

/** Replaces one entry in the cached library (no-op when the list is not loaded). */
function patchEntry(
  list: UserPodcastEntry[] | undefined,
  id: number,
  patch: (entry: UserPodcastEntry) => UserPodcastEntry,
) {
  return list?.map((entry) => (entry.id === id ? patch(entry) : entry));
}

/**
 * PUT /api/user-podcasts/:id {hidden}: optimistic, rolled back on failure, with the SPEC toasts
 * ('Podcast Updated' / 'Failed to update podcast').
 */
export function useSetPodcastHidden(userId: number) {
  const queryClient = useQueryClient();
  const { queryKey } = libraryQuery(userId);
  return useMutation({
    mutationFn: ({ entry, hidden }: { entry: UserPodcastEntry; hidden: boolean }) =>
      apiRequest(api.updateUserPodcast, { params: { id: entry.id }, body: { hidden } }),
    onMutate: async ({ entry, hidden }) => {
      await queryClient.cancelQueries({ queryKey });
      queryClient.setQueryData(queryKey, (list) => patchEntry(list, entry.id, (e) => ({ ...e, hidden })));
    },
    // Rolls back only this entry, so another toggle in flight keeps its own optimistic state.
    onError: (error, { entry }) => {
      queryClient.setQueryData(queryKey, (list) => patchEntry(list, entry.id, (e) => ({ ...e, hidden: entry.hidden })));
      toast({
        variant: 'destructive',
        title: 'Failed to update podcast',
        description: errorMessage(error, 'Please try again.'),
      });
    },
    onSuccess: (updated, { entry }) => {
      queryClient.setQueryData(queryKey, (list) => patchEntry(list, updated.id, (e) => ({ ...e, ...updated })));
      toast({
        title: 'Podcast Updated',
        description: updated.hidden
          ? `${entry.podcast.name} is now hidden from your profile.`
          : `${entry.podcast.name} is now visible on your profile.`,
      });
    },
  });
}

/** DELETE /api/user-podcasts/:id; the entry leaves the cached library once the server agrees. */
export function useRemovePodcast(userId: number) {
  const queryClient = useQueryClient();
  const { queryKey } = libraryQuery(userId);
  return useMutation({
    mutationFn: (entry: UserPodcastEntry) => apiRequest(api.removeUserPodcast, { params: { id: entry.id } }),
    onSuccess: (_ok, entry) => {
      queryClient.setQueryData(queryKey, (list) => list?.filter((e) => e.id !== entry.id));
      toast({ title: 'Podcast removed', description: `${entry.podcast.name} is no longer in your library.` });
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Failed to remove podcast',
        description: errorMessage(error, 'Please try again.'),
      });
    },
  });
}

/** POST /api/users/:userId/podcasts {podcastId}; the new entry joins the cached library. */
export function useAddPodcast(userId: number) {
  const queryClient = useQueryClient();
  const { queryKey } = libraryQuery(userId);
  return useMutation({
    mutationFn: (podcast: PodcastSummary) =>
      apiRequest(api.addUserPodcast, { params: { userId }, body: { podcastId: podcast.id } }),
    onSuccess: (entry) => {
      queryClient.setQueryData(queryKey, (list) => (list ? [...list.filter((e) => e.id !== entry.id), entry] : list));
      void queryClient.invalidateQueries({ queryKey });
      toast({ title: 'Podcast added', description: `${entry.podcast.name} is now in your library.` });
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Failed to add podcast',
        description: errorMessage(error, 'Please try again.'),
      });
    },
  });
}

/** A short text for an OPML upload that failed: the server's message (400/413) when it sent one. */
export function opmlErrorMessage(error: unknown): string {
  return errorMessage(error, 'Could not import the OPML file. Please try again.');
}

/** POST /api/users/:userId/podcasts/opml as multipart/form-data with one file field `opml`. */
export function useImportOpml(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (file: File): Promise<OpmlImportResult> => uploadRequest(api.importOpml, { params: { userId } }, file),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: libraryQuery(userId).queryKey });
    },
  });
}

/** The value, once it has stopped changing for `delayMs`. */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return debounced;
}

/** GET /api/podcasts/search?q=&limit= for the trimmed text; disabled while it is empty. */
export function usePodcastSearch(text: string) {
  const q = text.trim().slice(0, 100);
  return useQuery({
    ...endpointQuery(api.searchPodcasts, { query: { q, limit: SEARCH_LIMIT } }),
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
  });
}
