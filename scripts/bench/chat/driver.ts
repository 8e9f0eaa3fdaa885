// A driver process of the chat benchmark (scripts/bench/chat.ts): holds the sockets of its share of
// the pairs (person A on the first server instance, person B on the second), sends messages at a
// fixed rate round-robin over its senders (both directions), and measures, on its own clock, the
// time from each send to the RECEIVER's 'message:new'. Started with fork() and driven over IPC.
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { ClientToServerEvents, ServerToClientEvents } from '@shared/index';
import { io, type Socket } from 'socket.io-client';
import { percentile } from '../stats';
import type { DriverResult, FromDriver, LoopDelay, RunSpec, TargetKind, ToDriver } from './protocol';

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

interface Person {
  id: number;
  token: string;
  peer: number;
  matchId: number;
  socket?: ClientSocket;
}

/** One message sent: `recvAt` is when the receiver first got it. */
interface Sent {
  sentAt: number;
  measured: boolean;
  receiverId: number;
  content: string;
  received: number;
  recvAt: number;
  /** 0 pending, 1 ok, -1 failed. */
  ack: number;
  ackAt: number;
}

const send = (message: FromDriver) => process.send?.(message);

// The parent's pairs arrive as the first IPC message after 'ready' (see chat.ts).
let people: Person[] = [];
let driverIndex = 0;

let active = false;
let disconnects = 0;
let unknown = 0;
let misrouted = 0;
let corrupted = 0;
const sentByClientId = new Map<string, Sent>();

function onMessage(person: Person, message: { senderId: number; clientId: string | null; content: string }): void {
  const now = performance.now();
  if (message.senderId === person.id) return; // the sender's own copy (every tab hears its sends)
  const record = message.clientId ? sentByClientId.get(message.clientId) : undefined;
  if (!record) {
    unknown++;
    return;
  }
  if (record.receiverId !== person.id) {
    misrouted++;
    return;
  }
  if (record.content !== message.content) corrupted++;
  record.received++;
  if (record.received === 1) record.recvAt = now;
}

function connectOne(person: Person, url: string, kind: TargetKind): Promise<void> {
  const socket: ClientSocket = io(url, {
    auth: { token: person.token },
    // The bare relay has no sessions: it joins `user:{userId}` and sends to `user:{peer}`.
    query: kind === 'relay' ? { userId: String(person.id), peer: String(person.peer) } : {},
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: 60_000,
  });
  person.socket = socket;
  socket.on('message:new', (message) => onMessage(person, message));
  socket.on('disconnect', () => {
    if (active) disconnects++;
  });
  return new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
}

async function connectAll(kind: TargetKind, urls: [string, string], concurrency: number): Promise<void> {
  const started = performance.now();
  const errors = new Map<string, number>();
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < people.length) {
      const i = next++;
      const person = people[i] as Person;
      // Even index: person A of pair i/2 (first instance); odd: person B (second instance).
      try {
        await connectOne(person, i % 2 === 0 ? urls[0] : urls[1], kind);
      } catch (error) {
        failed++;
        const key = (error as Error).message;
        errors.set(key, (errors.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  send({
    type: 'connected',
    ms: performance.now() - started,
    failed,
    errors: [...errors].map(([message, n]) => `${n}x ${message}`),
  });
}

function disconnectAll(): void {
  for (const person of people) {
    person.socket?.removeAllListeners();
    person.socket?.disconnect();
    person.socket = undefined;
  }
  sentByClientId.clear();
  send({ type: 'disconnected' });
}

const ms = (ns: number) => ns / 1e6;

function summary(values: number[]): LoopDelay {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length),
  };
}

async function run(spec: RunSpec): Promise<void> {
  const warmupCount = Math.round(spec.rate * spec.warmupSeconds);
  const total = warmupCount + Math.round(spec.rate * spec.seconds);
  // Round-robin over all senders, both directions: A0, B1, A2, B3, ... then B0, A1, B2, A3, ...
  // Consecutive sends alternate between the two server instances (each takes half the rate at every
  // moment, not all of it half the time), and the two directions of a pair are half a cycle apart.
  const pairCount = people.length / 2;
  const senders: Person[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (let p = 0; p < pairCount; p++) senders.push(people[2 * p + ((p + pass) % 2)] as Person);
  }
  const records: Sent[] = [];
  const lags: number[] = [];
  // The histogram records the interval between its timer's runs: the delay is that minus the resolution.
  const resolution = 2;
  const loop = monitorEventLoopDelay({ resolution });
  disconnects = 0;
  unknown = 0;
  misrouted = 0;
  corrupted = 0;
  active = true;
  loop.enable();

  const ackTimeoutMs = spec.graceSeconds * 1000;
  const ackErrors = new Map<string, number>();
  const sendOne = (k: number, intendedAt: number) => {
    const sender = senders[k % senders.length] as Person;
    const clientId = randomUUID();
    const content = `bench ${driverIndex}.${k}: did you catch the latest episode? (${clientId.slice(0, 8)})`;
    const now = performance.now();
    const record: Sent = {
      sentAt: now,
      measured: k >= warmupCount,
      receiverId: sender.peer,
      content,
      received: 0,
      recvAt: 0,
      ack: 0,
      ackAt: 0,
    };
    records.push(record);
    sentByClientId.set(clientId, record);
    if (record.measured) lags.push(now - intendedAt);
    const socket = sender.socket;
    if (!socket?.connected) {
      record.ack = -1;
      ackErrors.set('not connected', (ackErrors.get('not connected') ?? 0) + 1);
      return;
    }
    socket
      .timeout(ackTimeoutMs)
      .emit('message:send', { matchId: sender.matchId, content, clientId }, (error, reply) => {
        record.ackAt = performance.now();
        if (error) {
          record.ack = -1;
          if (record.measured) ackErrors.set('timeout', (ackErrors.get('timeout') ?? 0) + 1);
        } else if (reply?.ok) {
          record.ack = 1;
        } else {
          record.ack = -1;
          const code = reply?.ok === false ? `${reply.error.status} ${reply.error.code}` : 'malformed ack';
          if (record.measured) ackErrors.set(code, (ackErrors.get(code) ?? 0) + 1);
        }
      });
  };

  // Open loop: each tick sends every message that is due by now, so a late timer never lowers the rate.
  const t0 = performance.now();
  let measuredStart = Number.NaN;
  let k = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) * spec.rate) / 1000) + 1);
      while (k < due) {
        if (k === warmupCount) {
          measuredStart = performance.now();
          loop.reset();
        }
        sendOne(k, t0 + (k * 1000) / spec.rate);
        k++;
      }
      if (k >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  const lastSend = performance.now();
  const measuredSeconds = (lastSend - measuredStart) / 1000;
  loop.disable();
  const delay = (ns: number) => Math.max(0, ms(ns) - resolution);
  const loopDelay: LoopDelay = {
    p50: delay(loop.percentile(50)),
    p99: delay(loop.percentile(99)),
    max: delay(loop.max),
    mean: delay(loop.mean),
  };

  // Grace: until every measured message arrived and every ack came (then a little longer, to see
  // late duplicates), at most graceSeconds after the last send.
  const measured = records.filter((r) => r.measured);
  const deadline = lastSend + spec.graceSeconds * 1000;
  let settledAt = Number.NaN;
  while (performance.now() < deadline) {
    const done = measured.every((r) => r.received > 0 && r.ack !== 0);
    if (done && Number.isNaN(settledAt)) settledAt = performance.now();
    if (done && performance.now() - settledAt >= 500) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  active = false;

  let failedAcks = 0;
  for (const r of measured) {
    if (r.ack === 0) ackErrors.set('no ack within the grace', (ackErrors.get('no ack within the grace') ?? 0) + 1);
    if (r.ack !== 1) failedAcks++;
  }
  const result: DriverResult = {
    sent: measured.length,
    warmupSent: records.length - measured.length,
    failedAcks,
    ackErrors: Object.fromEntries(ackErrors),
    received: measured.filter((r) => r.received > 0).length,
    lost: measured.filter((r) => r.received === 0).length,
    duplicated: measured.filter((r) => r.received > 1).length,
    unknown,
    misrouted,
    corrupted,
    disconnects,
    latencies: measured.filter((r) => r.received > 0).map((r) => r.recvAt - r.sentAt),
    timeline: records.filter((r) => r.received > 0).map((r) => [r.sentAt - measuredStart, r.recvAt - r.sentAt]),
    ackLatencies: measured.filter((r) => r.ack === 1).map((r) => r.ackAt - r.sentAt),
    schedulerLag: summary(lags),
    loopDelay,
    measuredSeconds,
  };
  send({ type: 'result', result });
}

process.on('message', (raw: unknown) => {
  const message = raw as ToDriver;
  const fail = (error: unknown) => send({ type: 'error', message: (error as Error).stack ?? String(error) });
  switch (message.type) {
    case 'pairs':
      driverIndex = message.index;
      people = message.pairs.flatMap((p) => [
        { id: p.a.id, token: p.a.token, peer: p.b.id, matchId: p.matchId },
        { id: p.b.id, token: p.b.token, peer: p.a.id, matchId: p.matchId },
      ]);
      send({ type: 'paired' });
      return;
    case 'connect':
      connectAll(message.kind, message.urls, message.concurrency).catch(fail);
      return;
    case 'run':
      run(message.spec).catch(fail);
      return;
    case 'disconnect':
      disconnectAll();
      return;
  }
});
// The benchmark went away (killed, or it closed the channel): nothing is left to drive.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready' });
