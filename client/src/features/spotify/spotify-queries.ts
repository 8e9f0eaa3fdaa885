import { api } from '@shared/api';
import { isJobFinished, jobErrorText } from '@shared/events';
import { PAGE_SIZES } from '@shared/schemas/common';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { allPagesQuery, apiRequest, endpointQuery } from '@/lib/api-client';
import { errorMessage } from '@/lib/http';
import { useJobStatus } from '@/lib/socket';
import { toast } from '@/lib/toast';
import { userQuery } from '@/lib/user-queries';

export const SPOTIFY_TEXTS = {
  refreshed: { title: 'Spotify Refreshed', description: 'Your podcast data has been updated.' },
  refreshFailed: 'Failed to refresh Spotify data. Please try again.',
} as const;

export function spotifyStatusQuery(userId: number) {
  return endpointQuery(api.spotifyStatus, { params: { userId } });
}
export function spotifyLibraryQuery(userId: number) {
  return allPagesQuery(api.listUserPodcasts, { params: { userId } }, PAGE_SIZES.library);
}

/** Polling fallback while a sync result is awaited, in case its socket event is missed. */
const SYNC_POLL_MS = 2000;

/**
 * The connection status. While connected but never synced (the first import after connecting),
 * or while `awaitingSync`, it is polled, so the card updates even without the socket event.
 */
export function useSpotifyStatus(userId: number, awaitingSync = false) {
  return useQuery({
    ...spotifyStatusQuery(userId),
    refetchInterval: (query) =>
      awaitingSync || (query.state.data?.connected && !query.state.data.lastSpotifySync) ? SYNC_POLL_MS : false,
  });
}

/** The library entries Spotify put there (the card lists a few); reloaded after each sync. */
export function useSpotifyEntries(userId: number, lastSync: string | null | undefined) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (lastSync) void queryClient.invalidateQueries({ queryKey: spotifyLibraryQuery(userId).queryKey });
  }, [lastSync, queryClient, userId]);
  const { data } = useQuery({ ...spotifyLibraryQuery(userId), enabled: lastSync !== undefined });
  return data?.filter((entry) => entry.source === 'spotify') ?? [];
}

function useRefreshSpotifyData(userId: number) {
  const queryClient = useQueryClient();
  return useCallback(
    () =>
      Promise.all(
        [spotifyStatusQuery(userId), spotifyLibraryQuery(userId), userQuery(userId)].map(async ({ queryKey }) => {
          // A first load still in flight began before the change and would answer the old state:
          // invalidating alone joins it instead of fetching again, so it is cancelled first.
          await queryClient.cancelQueries({ queryKey });
          await queryClient.invalidateQueries({ queryKey });
        }),
      ),
    [queryClient, userId],
  );
}

/**
 * 'Connect Spotify': asks for a one-time ticket (a navigation cannot carry the bearer token), then
 * navigates to /api/spotify/login?ticket=..., which goes on to Spotify's consent page.
 */
export function useConnectSpotify() {
  return useMutation({
    mutationFn: () => apiRequest(api.spotifyConnectTicket, {}),
    onSuccess: ({ url }) => {
      window.location.assign(url);
    },
    onError: () => {
      toast({ variant: 'destructive', title: 'Error', description: 'Could not start the Spotify connection.' });
    },
  });
}

/**
 * Back from Spotify's consent with `?spotify_connect=<code>`: the signed-in account claims the
 * connect (the server links only for the account that started it), then the card reloads.
 */
export function useFinishSpotifyConnect(userId: number) {
  const refreshData = useRefreshSpotifyData(userId);
  return useMutation({
    mutationFn: (code: string) => apiRequest(api.spotifyConnectFinish, { body: { code } }),
    onSuccess: () => {
      toast({ title: 'Spotify Connected', description: 'Your podcasts are being imported.' });
      void refreshData();
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Spotify connection failed',
        description: errorMessage(error, 'Connecting Spotify failed. Please try again.'),
      });
    },
  });
}

/**
 * 'Refresh': queues podcasts.sync and follows its job:status events for the outcome toast. The
 * realtime bridge reloads status and library after any finished sync (also a fresh connection's).
 */
export function useSpotifySync(userId: number) {
  const refreshData = useRefreshSpotifyData(userId);
  const [jobId, setJobId] = useState<string | null>(null);
  const lastSync = useSpotifyStatus(userId, jobId !== null).data?.lastSpotifySync;
  const [syncStartedFrom, setSyncStartedFrom] = useState<string | null | undefined>(undefined);

  // Fallback when the job's socket event never arrives: the status poll shows a newer sync.
  useEffect(() => {
    if (jobId === null || syncStartedFrom === undefined || !lastSync || lastSync === syncStartedFrom) return;
    setJobId(null);
    void refreshData();
    toast(SPOTIFY_TEXTS.refreshed);
  }, [jobId, syncStartedFrom, lastSync, refreshData]);

  useJobStatus('podcasts.sync', (event) => {
    if (event.jobId !== jobId || !isJobFinished(event)) return;
    setJobId(null);
    if (event.state === 'completed') {
      toast(SPOTIFY_TEXTS.refreshed);
    } else {
      // The code's own text (e.g. 'Reconnect Spotify'); SPEC's wording when the reason is unknown.
      toast({
        variant: 'destructive',
        title: 'Error',
        description: jobErrorText(event, { unknown: SPOTIFY_TEXTS.refreshFailed }),
      });
    }
  });

  const mutation = useMutation({
    mutationFn: () => apiRequest(api.spotifySync, { params: { userId } }),
    onSuccess: ({ jobId: id }) => {
      setSyncStartedFrom(lastSync ?? null);
      setJobId(id);
    },
    onError: () => {
      toast({ variant: 'destructive', title: 'Error', description: SPOTIFY_TEXTS.refreshFailed });
    },
  });
  return { sync: () => mutation.mutate(), syncing: mutation.isPending || jobId !== null };
}

export function useDisconnectSpotify(userId: number) {
  const refreshData = useRefreshSpotifyData(userId);
  return useMutation({
    mutationFn: () => apiRequest(api.spotifyDisconnect, { params: { userId } }),
    onSuccess: () => {
      void refreshData();
      toast({ title: 'Spotify Disconnected', description: 'Your Spotify podcasts were removed from your profile.' });
    },
    onError: () => {
      toast({ variant: 'destructive', title: 'Error', description: 'Failed to disconnect Spotify. Please try again.' });
    },
  });
}
