/**
 * A stand-in for the socket.io client: records listeners so a test can play server events.
 * Use inside vi.hoisted, then mock 'socket.io-client' with `io: (options) => fake.io(options)`.
 */
export function createFakeSocket() {
  const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
  const socket = {
    connected: false,
    active: false,
    on: (event: string, fn: (...args: unknown[]) => void) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(fn);
      return socket;
    },
    off: (event: string, fn: (...args: unknown[]) => void) => {
      listeners.get(event)?.delete(fn);
      return socket;
    },
    connect: () => socket,
    disconnect: () => socket,
  };
  const emit = (event: string, ...args: unknown[]) => {
    for (const fn of listeners.get(event) ?? []) fn(...args);
  };
  return { socket, listeners, emit, io: (_options?: unknown) => socket };
}
