import { api } from '@shared/api';
import { BLUESKY_TEXTS, type BlueskyReturnPage } from '@shared/schemas/bluesky';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest, endpointQuery } from '@/lib/api-client';
import { errorMessage } from '@/lib/http';
import { toast } from '@/lib/toast';
import { userQuery } from '@/lib/user-queries';

export function blueskyStatusQuery(userId: number) {
  return endpointQuery(api.blueskyStatus, { params: { userId } });
}

export function useBlueskyStatus(userId: number) {
  return useQuery(blueskyStatusQuery(userId));
}

function useRefreshBluesky(userId: number) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all(
      [blueskyStatusQuery(userId), userQuery(userId)].map((q) =>
        queryClient.invalidateQueries({ queryKey: q.queryKey }),
      ),
    );
}

/** 'Link Bluesky': the server checks the handle and answers where to approve it; the browser goes there. */
export function useLinkBluesky(userId: number, returnPage: BlueskyReturnPage) {
  return useMutation({
    mutationFn: (handle: string) => apiRequest(api.blueskyLink, { params: { userId }, body: { handle, returnPage } }),
    onSuccess: (answer) => {
      if (answer) window.location.assign(answer.url);
    },
  });
}

/** Back with `?bluesky_link=<code>`: this signed-in account claims the approved link. */
export function useFinishBluesky(userId: number) {
  const refresh = useRefreshBluesky(userId);
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => apiRequest(api.blueskyFinish, { params: { userId }, body: { code } }),
    onSuccess: async (status) => {
      // The answer is the link as stored: shown at once, whatever a status read begun before it says.
      const key = blueskyStatusQuery(userId).queryKey;
      await queryClient.cancelQueries({ queryKey: key });
      if (status) queryClient.setQueryData(key, status);
      toast({
        title: BLUESKY_TEXTS.linked,
        description: status?.handle ? `Your matches now see @${status.handle}.` : '',
      });
      void refresh();
    },
    onError: (error) => {
      toast({
        variant: 'destructive',
        title: 'Bluesky link failed',
        description: errorMessage(error, BLUESKY_TEXTS.failed),
      });
    },
  });
}

export function useUnlinkBluesky(userId: number) {
  const refresh = useRefreshBluesky(userId);
  return useMutation({
    mutationFn: () => apiRequest(api.blueskyUnlink, { params: { userId } }),
    onSuccess: () => {
      toast({ title: 'Bluesky unlinked', description: 'Your handle is no longer shown to matches.' });
      void refresh();
    },
    onError: (error) => {
      toast({ variant: 'destructive', title: 'Error', description: errorMessage(error, 'Could not unlink Bluesky.') });
    },
  });
}
