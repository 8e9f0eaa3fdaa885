// Messages between the chat benchmark (scripts/bench/chat.ts) and its driver processes
// (scripts/bench/chat/driver.ts), over the child-process IPC channel, plus small statistics helpers.

/** One matched pair: A connects to the first server instance, B to the second. */
export interface PairSpec {
  matchId: number;
  a: { id: number; token: string };
  b: { id: number; token: string };
}

/** The real chat servers (token auth) or the bare relay (`userId` and `peer` in the handshake query). */
export type TargetKind = 'chat' | 'relay';

export interface RunSpec {
  /** Messages per second sent by this driver (its share of the total rate). */
  rate: number;
  warmupSeconds: number;
  seconds: number;
  /** How long after the last send a message may still arrive (and an ack still come). */
  graceSeconds: number;
}

export type ToDriver =
  | { type: 'pairs'; pairs: PairSpec[]; index: number }
  | { type: 'connect'; kind: TargetKind; urls: [string, string]; concurrency: number }
  | { type: 'run'; spec: RunSpec }
  | { type: 'disconnect' };

export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export interface DriverResult {
  /** Messages sent in the measured window (warm-up excluded). */
  sent: number;
  warmupSent: number;
  /** Measured messages whose ack was not `{ok: true}` (an error answer or no ack within the grace). */
  failedAcks: number;
  /** Failed acks by reason (`timeout`, or the error code the server answered). */
  ackErrors: Record<string, number>;
  /** Measured messages the receiver got at least once / never / more than once. */
  received: number;
  lost: number;
  duplicated: number;
  /** 'message:new' events for a clientId this driver never sent, for the wrong person, or altered. */
  unknown: number;
  misrouted: number;
  corrupted: number;
  /** Sockets that disconnected while the phase ran (they were not reconnected). */
  disconnects: number;
  /** Send-to-receive (receiver's 'message:new') and send-to-ack latencies of measured messages, ms. */
  latencies: number[];
  /** Every received message, warm-up included: [ms after the measured window began (< 0: warm-up), latency]. */
  timeline: [number, number][];
  ackLatencies: number[];
  /** How late the scheduler sent (actual - intended send time), ms. */
  schedulerLag: LoopDelay;
  /** Event-loop delay of this driver process during the measured window, ms. */
  loopDelay: LoopDelay;
  /** Measured window as this driver saw it, s. */
  measuredSeconds: number;
}

export type FromDriver =
  | { type: 'ready' }
  | { type: 'paired' }
  | { type: 'connected'; ms: number; failed: number; errors: string[] }
  | { type: 'result'; result: DriverResult }
  | { type: 'disconnected' }
  | { type: 'error'; message: string };

export const round = (x: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
