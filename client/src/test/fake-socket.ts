type Listener = (...args: unknown[]) => void;
type Ack = (...args: unknown[]) => void;

/** How the fake server answers a client event with an acknowledgement (may be a promise); undefined = never. */
export type AckAnswer = (payload: unknown) => unknown;

/**
 * A stand-in for the socket.io client: records listeners so a test can play server events, records
 * what the client emits, answers acknowledgements as the test says, and can connect and disconnect.
 * Use inside vi.hoisted, then mock 'socket.io-client' with `io: (options) => fake.io(options)`.
 */
export function createFakeSocket() {
  const listeners = new Map<string, Set<Listener>>();
  /** Client-to-server events, in order. */
  const sent: { event: string; payload: unknown }[] = [];
  const answers = new Map<string, AckAnswer>();

  const emit = (event: string, ...args: unknown[]) => {
    for (const fn of [...(listeners.get(event) ?? [])]) fn(...args);
  };

  const socket = {
    connected: false,
    active: false,
    on: (event: string, fn: Listener) => {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)?.add(fn);
      return socket;
    },
    off: (event: string, fn: Listener) => {
      listeners.get(event)?.delete(fn);
      return socket;
    },
    connect: () => socket,
    disconnect: () => socket,
    /** Client -> server. An ack is answered (asynchronously) when the test set an answer for the event. */
    emit: (event: string, payload?: unknown, ack?: Ack) => {
      sent.push({ event, payload });
      const answer = answers.get(event);
      if (ack && answer) {
        void Promise.resolve()
          .then(() => answer(payload))
          .then((reply) => {
            if (reply !== undefined) ack(reply);
          });
      }
      return socket;
    },
    /** socket.timeout(ms).emit(event, payload, (error, reply) => ...), like socket.io. */
    timeout: (ms: number) => ({
      emit: (event: string, payload: unknown, ack: Ack) => {
        let done = false;
        const timer = setTimeout(() => {
          if (done) return;
          done = true;
          ack(new Error('operation has timed out'));
        }, ms);
        socket.emit(event, payload, (reply: unknown) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          ack(null, reply);
        });
      },
    }),
  };

  /** Flips the connection state and tells the 'connect' / 'disconnect' listeners, like socket.io. */
  const setConnected = (connected: boolean) => {
    socket.connected = connected;
    emit(connected ? 'connect' : 'disconnect', ...(connected ? [] : ['transport close']));
  };

  /** Forgets emitted events, answers and the connection state between tests (listeners stay). */
  const reset = () => {
    sent.length = 0;
    answers.clear();
    socket.connected = false;
  };

  return {
    socket,
    listeners,
    emit,
    sent,
    answers,
    setConnected,
    reset,
    /** The payloads the client emitted for one event. */
    sentOf: (event: string) => sent.filter((s) => s.event === event).map((s) => s.payload),
    io: (_options?: unknown) => socket,
  };
}
