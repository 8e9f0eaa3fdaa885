// Test helpers for chat: people, mutual matches, sends over REST and socket, catch-up, and a
// per-socket log of the events that arrived.
import { randomUUID } from 'node:crypto';
import type { Ack, Message, ServerToClientEvents } from '@shared/index';
import { expect } from 'vitest';
import { shareAShow } from './feed-fixture';
import type { TestClient, TestSocket } from './harness';

export type Person = { token: string; id: number };

export async function person(server: TestClient, username?: string): Promise<Person> {
  const login = await server.login(username);
  return { token: login.token, id: login.user.id };
}

/**
 * Two fresh people, each in the other's feed (a show in common), who liked each other (romantic):
 * their mutual match id. `databaseUrl`: the database behind `server` (the test file's by default).
 */
export async function mutualPair(
  server: TestClient,
  databaseUrl?: string,
): Promise<{ a: Person; b: Person; matchId: number }> {
  const [a, b] = await Promise.all([person(server), person(server)]);
  await shareAShow([[a, b]], databaseUrl);
  const like = (from: Person, to: Person) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      body: { user1Id: from.id, user2Id: to.id, intent: 'romantic', user1Liked: true },
    });
  await like(a, b);
  const res = await like(b, a);
  expect(res.json?.isMutualMatch, res.text).toBe(true);
  return { a, b, matchId: res.json.id as number };
}

export function sendRest(server: TestClient, from: Person, matchId: number, content: string, clientId?: string) {
  return server.call('POST', '/api/chat', {
    token: from.token,
    body: { matchId, senderId: from.id, content, ...(clientId ? { clientId } : {}) },
  });
}

export function sendSocket(
  socket: TestSocket,
  matchId: number,
  content: string,
  clientId: string = randomUUID(),
): Promise<Ack<Message>> {
  return socket.timeout(20_000).emitWithAck('message:send', { matchId, content, clientId });
}

/** Any client event with an ack, payload unchecked (to send what a misbehaving client would). */
export function emitRaw(socket: TestSocket, event: string, payload: unknown): Promise<Ack<unknown>> {
  return (
    socket.timeout(10_000) as unknown as { emitWithAck(e: string, p: unknown): Promise<Ack<unknown>> }
  ).emitWithAck(event, payload);
}

export function listPath(viewer: Person, matchId: number, query = ''): string {
  return `/api/users/${viewer.id}/matches/${matchId}/messages${query ? `?${query}` : ''}`;
}

/** What a reconnecting client does: pages of `after` its last seq until a page comes back short. */
export async function catchUp(
  server: TestClient,
  viewer: Person,
  matchId: number,
  after: number,
  limit = 50,
): Promise<{ messages: Message[]; pages: number }> {
  const messages: Message[] = [];
  let last = after;
  let pages = 0;
  for (;;) {
    const res = await server.call('GET', listPath(viewer, matchId, `after=${last}&limit=${limit}`), {
      token: viewer.token,
    });
    expect(res.status, res.text).toBe(200);
    const page = res.json as Message[];
    pages++;
    messages.push(...page);
    if (page.length < limit) return { messages, pages };
    last = page[page.length - 1]?.seq ?? last;
  }
}

/** Every event of these names that reaches a socket, in arrival order. */
export class EventLog {
  readonly events: { event: keyof ServerToClientEvents; payload: unknown }[] = [];
  private waiters: (() => void)[] = [];

  constructor(socket: TestSocket, names: (keyof ServerToClientEvents)[]) {
    for (const name of names) {
      socket.on(name, ((payload: unknown) => {
        this.events.push({ event: name, payload });
        for (const waiter of [...this.waiters]) waiter();
      }) as never);
    }
  }

  of<T = unknown>(name: keyof ServerToClientEvents): T[] {
    return this.events.filter((e) => e.event === name).map((e) => e.payload as T);
  }

  messages(matchId?: number): Message[] {
    return this.of<Message>('message:new').filter((m) => matchId === undefined || m.matchId === matchId);
  }

  /** Resolves once `check` holds for what arrived (checked on each event), or fails after timeoutMs. */
  async until(check: (log: EventLog) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (check(this)) return;
    await new Promise<void>((resolve, reject) => {
      const waiter = () => {
        if (!check(this)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${what}; got ${this.events.length} events`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** seq 1..n exactly, in order. */
export function expectSeqs(messages: Message[], n: number): void {
  expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
}
