import type { ClientToServerEvents, ServerToClientEvents } from '@shared/events';
import { useEffect, useRef } from 'react';
import { io, type Socket } from 'socket.io-client';
import { readStoredToken } from './session';

export type AppSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: AppSocket | null = null;

/** The one socket of this tab, same origin. Created lazily so nothing connects before sign-in. */
export function getSocket(): AppSocket {
  if (!socket) {
    socket = io({
      path: '/socket.io',
      autoConnect: false,
      withCredentials: true,
      // A function, so every (re)connection sends the current token, also after a rotation.
      auth: (cb) => cb({ token: readStoredToken() }),
    });
  }
  return socket;
}

export function connectSocket(): AppSocket {
  const s = getSocket();
  if (!s.connected && !s.active) s.connect();
  return s;
}

export function disconnectSocket(): void {
  socket?.disconnect();
}

/**
 * Keeps the socket connected while `userId` is set and disconnected otherwise. `onSessionEnded`
 * runs when the server ends the session ('session:ended') or refuses the token ('unauthorized').
 */
export function useSocketConnection(userId: number | null, onSessionEnded: () => void): void {
  const onEnded = useRef(onSessionEnded);
  useEffect(() => {
    onEnded.current = onSessionEnded;
  });

  useEffect(() => {
    if (userId === null) return;
    const s = connectSocket();
    const ended = () => onEnded.current();
    const connectError = (error: Error) => {
      if (error.message === 'unauthorized') onEnded.current();
    };
    s.on('session:ended', ended);
    s.on('connect_error', connectError);
    return () => {
      s.off('session:ended', ended);
      s.off('connect_error', connectError);
      s.disconnect();
    };
  }, [userId]);
}

type EventName = keyof ServerToClientEvents;

/** Subscribes to a server event for the lifetime of the component; the latest handler is used. */
export function useSocketEvent<E extends EventName>(event: E, handler: ServerToClientEvents[E]): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });

  useEffect(() => {
    const s = getSocket();
    const listener = ((...args: Parameters<ServerToClientEvents[E]>) =>
      (latest.current as (...a: typeof args) => void)(...args)) as ServerToClientEvents[E];
    // socket.io's overloads cannot follow a generic event name; the map above keeps it type safe.
    (s.on as (event: E, fn: ServerToClientEvents[E]) => AppSocket)(event, listener);
    return () => {
      (s.off as (event: E, fn: ServerToClientEvents[E]) => AppSocket)(event, listener);
    };
  }, [event]);
}
