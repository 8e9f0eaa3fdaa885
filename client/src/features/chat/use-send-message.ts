import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { noteMessage } from '@/lib/match-cache';
import { addMessages, addPending, dropPending } from './conversation-cache';
import { deliverMessage, sendErrorText } from './send-message';

/**
 * Sends one message at a time: shows it at once as pending, replaces it with the stored copy (matched
 * by clientId, so a 'message:new' for it never shows it twice), and on failure takes it back and
 * reports the error. The same text sent again after a failure keeps its clientId: if the first try
 * was stored after all, the server answers with that message instead of adding a second.
 */
export function useSendMessage(userId: number, matchId: number) {
  const queryClient = useQueryClient();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const lastFailed = useRef<{ content: string; clientId: string } | null>(null);

  const send = async (content: string): Promise<boolean> => {
    const clientId =
      lastFailed.current?.content === content ? lastFailed.current.clientId : globalThis.crypto.randomUUID();
    addPending(queryClient, matchId, { clientId, content, createdAt: new Date().toISOString() });
    setSending(true);
    setError(null);
    try {
      const stored = await deliverMessage({ userId, matchId, content, clientId });
      lastFailed.current = null;
      addMessages(queryClient, matchId, [stored]);
      noteMessage(queryClient, userId, stored, { unread: false });
      return true;
    } catch (failure) {
      lastFailed.current = { content, clientId };
      dropPending(queryClient, matchId, clientId);
      setError(sendErrorText(failure));
      return false;
    } finally {
      setSending(false);
    }
  };

  return { send, sending, error, clearError: () => setError(null) };
}
