import {
  type Ack,
  type ClientToServerEvents,
  isJobStatus,
  type JobStatusEvent,
  type ServerEventName,
  type ServerEventPayload,
  serverEvents,
} from '@shared/events';
import type { JobName } from '@shared/jobs';
import { useEffect, useRef, useSyncExternalStore } from 'react';
import { io, type Socket } from 'socket.io-client';
import { z } from 'zod';
import { readStoredToken } from './session';

/** What arrives on the wire is unchecked until its schema has parsed it (see onServerEvent). */
type UncheckedServerEvents = { [E in ServerEventName]: (payload: unknown) => void };
export type AppSocket = Socket<UncheckedServerEvents, ClientToServerEvents>;

let socket: AppSocket | null = null;

/** Browser tests set this storage flag before the app loads to reach the socket (see exposeForBrowserTests). */
export const E2E_SOCKET_FLAG = 'podmatch.e2e';

/**
 * Test hook: with the flag set (by a Playwright init script), the socket is `window.__podmatchSocket`, so a
 * test can cut and restore this tab's connection. The e2e tier runs the production build, so a build-mode
 * check would hide it there; a user setting the flag only reaches their own socket, as devtools already can.
 */
function exposeForBrowserTests(s: AppSocket): void {
  try {
    if (globalThis.localStorage?.getItem(E2E_SOCKET_FLAG) === '1') Object.assign(globalThis, { __podmatchSocket: s });
  } catch {
    // storage unavailable: no hook
  }
}

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
    exposeForBrowserTests(socket);
  }
  return socket;
}

function subscribeConnection(onChange: () => void): () => void {
  const s = getSocket();
  s.on('connect', onChange);
  s.on('disconnect', onChange);
  return () => {
    s.off('connect', onChange);
    s.off('disconnect', onChange);
  };
}

/** Whether this tab's socket is connected right now (re-renders on connect and disconnect). */
export function useSocketConnected(): boolean {
  return useSyncExternalStore(
    subscribeConnection,
    () => getSocket().connected,
    () => false,
  );
}

/** Runs `handler` on every (re)connection of the socket. Returns the unsubscribe function. */
export function onSocketConnect(handler: () => void): () => void {
  const s = getSocket();
  s.on('connect', handler);
  return () => {
    s.off('connect', handler);
  };
}

/** Client events answered with an acknowledgement ({ok, data} | {ok: false, error}). */
type AckEvents = {
  [E in keyof ClientToServerEvents]: Parameters<ClientToServerEvents[E]> extends [unknown, ((reply: infer R) => void)?]
    ? R extends Ack<unknown>
      ? E
      : never
    : never;
}[keyof ClientToServerEvents];
type AckPayload<E extends AckEvents> = Parameters<ClientToServerEvents[E]>[0];
type AckData<E extends AckEvents> =
  NonNullable<Parameters<ClientToServerEvents[E]>[1]> extends (reply: Ack<infer T>) => void ? T : never;

/** No acknowledgement within the time limit (the event may still have arrived: retry idempotently). */
export class AckTimeoutError extends Error {
  override readonly name = 'AckTimeoutError';
}

/** The server refused the event; `status` and `code` are what the REST API would have answered. */
export class AckError extends Error {
  override readonly name = 'AckError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Emits a client event and waits for its acknowledgement: resolves to the data of `{ok: true}`, rejects
 * with AckError for `{ok: false}` and with AckTimeoutError after `timeoutMs`. The data is unchecked here:
 * validate it with its schema like any payload from the server.
 */
export function emitWithAck<E extends AckEvents>(
  event: E,
  payload: AckPayload<E>,
  timeoutMs: number,
): Promise<unknown> {
  // socket.io's typings cannot follow a generic event name through timeout(); the shapes are checked above.
  const s = getSocket().timeout(timeoutMs) as unknown as {
    emit: (event: string, payload: unknown, ack: (error: Error | null, reply?: Ack<AckData<E>>) => void) => void;
  };
  return new Promise((resolve, reject) => {
    s.emit(event, payload, (error, reply) => {
      if (error) reject(new AckTimeoutError(`No answer to '${event}' within ${timeoutMs} ms`));
      else if (reply?.ok === true) resolve(reply.data);
      else if (reply?.ok === false && reply.error)
        reject(new AckError(reply.error.status, reply.error.code, reply.error.message));
      else reject(new AckError(500, 'invalid_ack', `Malformed answer to '${event}'`));
    });
  });
}

export function connectSocket(): AppSocket {
  const s = getSocket();
  if (!s.connected && !s.active) s.connect();
  return s;
}

export function disconnectSocket(): void {
  socket?.disconnect();
}

type Handler<E extends ServerEventName> = (payload: ServerEventPayload<E>) => void;

/** Per event: the one socket listener, which validates once for all, and the handlers it feeds. */
const subscriptions = new Map<
  ServerEventName,
  { listener: (payload: unknown) => void; handlers: Set<Handler<never>> }
>();

function deliver<E extends ServerEventName>(event: E, payload: unknown): void {
  const parsed = serverEvents[event].safeParse(payload);
  if (!parsed.success) {
    // A server of another version or a bug: drop it rather than hand components a wrong shape.
    if (import.meta.env.DEV) console.warn(`Dropped an invalid '${event}' event:`, z.prettifyError(parsed.error));
    return;
  }
  const valid = parsed.data as ServerEventPayload<E>;
  for (const handler of [...(subscriptions.get(event)?.handlers ?? [])]) (handler as Handler<E>)(valid);
}

/**
 * Subscribes to a server event; the handler receives only payloads its schema accepts (invalid
 * ones are dropped, with a warning in development). Returns the unsubscribe function.
 */
export function onServerEvent<E extends ServerEventName>(event: E, handler: Handler<E>): () => void {
  // socket.io's overloads cannot follow a generic event name; every event has the same raw type.
  const s = getSocket() as unknown as Socket<Record<string, (payload: unknown) => void>>;
  const name: string = event;
  let entry = subscriptions.get(event);
  if (!entry) {
    entry = { listener: (payload) => deliver(event, payload), handlers: new Set() };
    subscriptions.set(event, entry);
    s.on(name, entry.listener);
  }
  const current = entry;
  current.handlers.add(handler as Handler<never>);
  return () => {
    current.handlers.delete(handler as Handler<never>);
    if (current.handlers.size > 0 || subscriptions.get(event) !== current) return;
    subscriptions.delete(event);
    s.off(name, current.listener);
  };
}

/**
 * Keeps the socket connected while `userId` is set and disconnected otherwise. `onRefused` runs
 * when the server refuses the token ('unauthorized'); 'session:ended' is an event like the others.
 */
export function useSocketConnection(userId: number | null, onRefused: () => void): void {
  const latest = useRef(onRefused);
  useEffect(() => {
    latest.current = onRefused;
  });

  useEffect(() => {
    if (userId === null) return;
    const s = connectSocket();
    const connectError = (error: Error) => {
      if (error.message === 'unauthorized') latest.current();
    };
    s.on('connect_error', connectError);
    return () => {
      s.off('connect_error', connectError);
      s.disconnect();
    };
  }, [userId]);
}

/** Subscribes to a validated server event for the lifetime of the component; the latest handler is used. */
export function useSocketEvent<E extends ServerEventName>(event: E, handler: Handler<E>): void {
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => onServerEvent(event, (payload) => latest.current(payload)), [event]);
}

/** The 'job:status' events of one job, typed by its name: `useJobStatus('podcasts.sync', (e) => ...)`. */
export function useJobStatus<N extends JobName>(name: N, handler: (event: JobStatusEvent<N>) => void): void {
  useSocketEvent('job:status', (event) => {
    if (isJobStatus(event, name)) handler(event);
  });
}
