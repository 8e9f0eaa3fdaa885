import { api } from '@shared/api';
import type { QueryClient } from '@tanstack/react-query';
import { apiRequest } from '@/lib/api-client';
import { matchQuery } from '@/lib/match-cache';
import { getSocket } from '@/lib/socket';

/**
 * Tells the server the user read everything up to `seq`: over the socket when connected (the server
 * echoes 'message:read' to the user's other tabs), else POST /api/matches/:id/read. Best effort: the
 * next read, or the next visit, sends it again.
 */
export async function markRead(queryClient: QueryClient, matchId: number, seq: number): Promise<void> {
  const socket = getSocket();
  if (socket.connected) {
    socket.emit('message:read', { matchId, seq });
    return;
  }
  try {
    const match = await apiRequest(api.markMessagesRead, { params: { matchId }, body: { seq } });
    queryClient.setQueryData(matchQuery(matchId).queryKey, match);
  } catch {
    // Offline as well: nothing to do.
  }
}
