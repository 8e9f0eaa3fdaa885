import { api } from '@shared/api';
import type { Intent } from '@shared/constants';
import { isSelfUser, type SelfUser, type UpdateUserBody } from '@shared/schemas/user';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useAtom, useAtomValue } from 'jotai';
import { apiRequest, endpointQuery, errorMessage } from '@/lib/api-client';
import { currentIntentAtom, selectedIntentAtom } from '@/lib/intent';
import { sessionAtom } from '@/lib/session';
import { toast } from '@/lib/toast';

/** GET /api/users/:userId, keyed by its URL. For the signed-in user it also validates the session. */
export function userQuery(userId: number) {
  return endpointQuery(api.getUser, { params: { userId } });
}

/** The signed-in user as SelfUser, once loaded (disabled while signed out). */
export function useCurrentUser(): SelfUser | undefined {
  const session = useAtomValue(sessionAtom);
  const { data } = useQuery({ ...userQuery(session?.userId ?? 0), enabled: session !== null });
  return data && isSelfUser(data) ? data : undefined;
}

/** The intent the app shows, and a setter that changes it in this tab only (the feed's behaviour). */
export function useCurrentIntent(): [Intent, (intent: Intent) => void] {
  const intent = useAtomValue(currentIntentAtom);
  const [, setSelected] = useAtom(selectedIntentAtom);
  return [intent, setSelected];
}

/** PUT /api/users/:userId for the signed-in user; the answer replaces the cached user. */
export function useUpdateCurrentUser() {
  const queryClient = useQueryClient();
  const session = useAtomValue(sessionAtom);
  return useMutation({
    mutationFn: (body: UpdateUserBody) => {
      if (!session) throw new Error('Not signed in');
      return apiRequest(api.updateUser, { params: { userId: session.userId }, body });
    },
    onSuccess: (user) => {
      queryClient.setQueryData(userQuery(user.id).queryKey, user);
    },
  });
}

/**
 * Changing the intent on the profile (and the feed) also saves it on the server (SPEC section 4);
 * `apply` changes it in the tab (default: the tab's selected intent), and again back on a failure.
 */
export function useSaveIntent(apply?: (intent: Intent) => void) {
  const [intent, setSelected] = useCurrentIntent();
  const setIntent = apply ?? setSelected;
  const update = useUpdateCurrentUser();
  const save = (next: Intent) => {
    const previous = intent;
    setIntent(next);
    update.mutate(
      { intent: next },
      {
        onError: (error) => {
          setIntent(previous);
          toast({
            variant: 'destructive',
            title: 'Error updating profile',
            description: errorMessage(error, 'Failed to update profile'),
          });
        },
      },
    );
  };
  return { intent, save, isSaving: update.isPending };
}
