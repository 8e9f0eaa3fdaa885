import type { MatchView } from '@shared/schemas/matches';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { noteRead } from '@/lib/match-cache';
import { emitWithAck, getSocket, useSocketConnected } from '@/lib/socket';
import { presenceQuery, setPresence, type TypingState, typingQuery } from './conversation-cache';
import { markRead } from './read-receipts';

/** Typing 'true' is sent again at most this often while the person keeps typing. */
export const TYPING_THROTTLE_MS = 2_000;
/** After this long without a keystroke, 'typing: false' is sent. */
export const TYPING_IDLE_MS = 4_000;
/** A received 'typing: true' shows this long unless renewed (covers a lost 'false'). */
export const TYPING_SHOWN_MS = 6_000;
const PRESENCE_TIMEOUT_MS = 5_000;

/** The current time, renewed every `intervalMs` (relative times and expiries re-render with it). */
export function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function pageActive(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

/** Whether the page is visible and focused (read receipts are sent only then). */
export function usePageActive(): boolean {
  const [active, setActive] = useState(pageActive);
  useEffect(() => {
    const check = () => setActive(pageActive());
    window.addEventListener('focus', check);
    window.addEventListener('blur', check);
    document.addEventListener('visibilitychange', check);
    return () => {
      window.removeEventListener('focus', check);
      window.removeEventListener('blur', check);
      document.removeEventListener('visibilitychange', check);
    };
  }, []);
  return active;
}

/** Sends 'typing' for this match: true while keys come (throttled), false when idle, sent or left. */
export function useTypingSignal(matchId: number) {
  const typing = useRef(false);
  const sentAt = useRef(0);
  const idle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const emit = (value: boolean) => {
    const socket = getSocket();
    // Not buffered while offline: a stale 'typing' after a reconnect would be wrong.
    if (socket.connected) socket.emit('typing', { matchId, typing: value });
  };
  const stop = () => {
    clearTimeout(idle.current);
    if (!typing.current) return;
    typing.current = false;
    emit(false);
  };
  const onDraftChange = (draft: string) => {
    if (!draft.trim()) {
      stop();
      return;
    }
    const now = Date.now();
    if (!typing.current || now - sentAt.current >= TYPING_THROTTLE_MS) {
      typing.current = true;
      sentAt.current = now;
      emit(true);
    }
    clearTimeout(idle.current);
    idle.current = setTimeout(stop, TYPING_IDLE_MS);
  };

  // Leaving the chat while typing tells the other person it stopped.
  const latestStop = useRef(stop);
  useEffect(() => {
    latestStop.current = stop;
  });
  useEffect(() => () => latestStop.current(), []);
  return { onDraftChange, stop };
}

/** Whether the other person is typing in this match right now. */
export function useOtherTyping(matchId: number, otherUserId: number | undefined): boolean {
  const { data } = useQuery(typingQuery(matchId));
  const [, rerender] = useState(0);
  const active = (state: TypingState | null | undefined): state is TypingState =>
    !!state && state.userId === otherUserId && Date.now() - state.at < TYPING_SHOWN_MS;
  const shown = active(data);
  useEffect(() => {
    if (!data || !shown) return;
    const timer = setTimeout(() => rerender((n) => n + 1), data.at + TYPING_SHOWN_MS - Date.now());
    return () => clearTimeout(timer);
  }, [data, shown]);
  return shown;
}

/** The other person's presence: asked on open and after every reconnect, then kept by 'presence' events. */
export function usePresence(matchId: number, otherUserId: number | undefined): boolean | undefined {
  const queryClient = useQueryClient();
  const connected = useSocketConnected();
  useEffect(() => {
    if (!connected || otherUserId === undefined) return;
    let current = true;
    emitWithAck('presence:get', { matchId }, PRESENCE_TIMEOUT_MS)
      .then((data) => {
        const online = (data as { online?: unknown } | undefined)?.online;
        if (current && typeof online === 'boolean') setPresence(queryClient, otherUserId, online);
      })
      .catch(() => {});
    return () => {
      current = false;
    };
  }, [connected, matchId, otherUserId, queryClient]);
  return useQuery({ ...presenceQuery(otherUserId ?? 0), enabled: otherUserId !== undefined }).data;
}

/**
 * Read receipts: while the chat is visible and focused, tells the server it has read the newest
 * message (and, on opening, a chat never opened). The unread mark clears here at once.
 */
export function useReadReceipts(userId: number, match: MatchView | undefined, newestSeq: number | undefined) {
  const queryClient = useQueryClient();
  const active = usePageActive();
  const sent = useRef<number | null>(null);
  const matchId = match?.id;
  const floor = match ? (match.hasUnreadMessages ? -1 : match.readSeq) : undefined;
  useEffect(() => {
    if (matchId === undefined || floor === undefined || newestSeq === undefined || !active) return;
    if (newestSeq <= (sent.current ?? floor)) return;
    sent.current = newestSeq;
    noteRead(queryClient, userId, { matchId, userId, seq: newestSeq });
    void markRead(queryClient, matchId, newestSeq);
  }, [queryClient, userId, matchId, floor, newestSeq, active]);
}
