// Test helpers: a real server (HTTP + Socket.IO) on a free port against the test file's database.
import { randomUUID } from 'node:crypto';
import type { ClientToServerEvents, LoginResponse, ServerToClientEvents } from '@shared/index';
import { Redis } from 'ioredis';
import { io as connectSocket, type Socket } from 'socket.io-client';
import webpush from 'web-push';
import { loadConfig } from '../config';
import { ArtworkUrls } from '../core/artwork/artwork-urls';
import { createLogger } from '../core/logger';
import type { Clock, SetTimer } from '../features/auth/session.service';
import { type RunningServer, startServer } from '../server';
import { testDatabaseUrl, testRedisUrl } from './test-stack';

export type TestSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * The image proxy's signing key of every test server and worker (in this process or another), so
 * URLs one hands out work on all of them; a test that wants another key sets IMAGE_PROXY_KEY.
 */
export const TEST_IMAGE_PROXY_KEY = Buffer.alloc(32, 0x5a).toString('base64');

/** The artwork URLs a test server signs, for tests that call services without one. */
export const testArtworkUrls = () => new ArtworkUrls(Buffer.from(TEST_IMAGE_PROXY_KEY, 'base64'));

/** The environment of a test server; an override of `undefined` removes that variable. */
/** The VAPID keys of this test process's servers and workers. */
export const TEST_VAPID_KEYS = webpush.generateVAPIDKeys();

export function testEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: testDatabaseUrl(),
    REDIS_URL: testRedisUrl(),
    MEDIA_DIR: '.data/test-media',
    // Mail goes to the development mailbox here unless a test sets SMTP_URL (docs/auth.md).
    MAIL_DIR: '.data/test-mail',
    LOG_LEVEL: 'silent',
    // Workers started by tests do not schedule the periodic full recompute unless a test asks.
    MATCHES_RECOMPUTE_EVERY_MINUTES: '0',
    MATCHES_REFRESH_CHECK_SECONDS: '0',
    REPORTS_EXPIRE_EVERY_MINUTES: '0',
    // Demo people answer likes within a second or two, not minutes (docs/matches.md).
    DEMO_REPLY_DELAY_SECONDS: '1-2',
    // Every test signs in and acts from 127.0.0.1; the rate-limit tests ask for the real allowances.
    RATE_LIMIT_SCALE: '100',
    IMAGE_PROXY_KEY: TEST_IMAGE_PROXY_KEY,
    // No AT Protocol network unless a test starts the stand-in: a closed local port refuses at once.
    ATPROTO_PLC_URL: 'http://127.0.0.1:9',
    ATPROTO_HANDLE_RESOLVER: 'http://127.0.0.1:9',
    // Push on (docs/notifications.md): one key pair per test process, for its server and worker.
    VAPID_PUBLIC_KEY: TEST_VAPID_KEYS.publicKey,
    VAPID_PRIVATE_KEY: TEST_VAPID_KEYS.privateKey,
    ...overrides,
  };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

export async function startTestServer(
  overrides: Record<string, string | undefined> = {},
  options: { clock?: Clock; setTimer?: SetTimer; uploadSweepEveryMs?: number } = {},
): Promise<TestServer> {
  const config = loadConfig(testEnv(overrides));
  return new TestServer(await startServer(config, createLogger('server', config.logLevel), options));
}

/**
 * A clock that stands still until a test moves it. Its timers (`setTimer`, for the server's
 * `setTimer` option) run when it is moved past their time, in order.
 */
export class TestClock {
  private at = Date.now();
  private timers: { due: number; fn: () => void }[] = [];
  readonly now = () => this.at;
  readonly setTimer: SetTimer = (fn, ms) => {
    const timer = { due: this.at + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  };
  advance(ms: number): void {
    this.at += ms;
    for (;;) {
      const due = this.timers.filter((t) => t.due <= this.at).sort((a, b) => a.due - b.due)[0];
      if (!due) return;
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
  }
}

export function uniqueName(prefix = 'user'): string {
  return `${prefix}_${randomUUID().slice(0, 8)}`;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  /** A multipart body (file uploads). */
  form?: FormData;
  headers?: Record<string, string>;
}

/** HTTP calls, logins and sockets against a server at `url` (in this process or another). */
export class TestClient {
  private readonly sockets: TestSocket[] = [];
  constructor(readonly url: string) {}

  async call(method: string, path: string, options: CallOptions = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | FormData | undefined;
    if (options.form) {
      body = options.form;
    } else if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    // Redirects are answers to check (the OAuth navigations), not to follow.
    const res = await fetch(`${this.url}${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  }

  async login(username = uniqueName()): Promise<LoginResponse> {
    const res = await this.call('POST', '/api/auth/dev-login', { body: { username } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return res.json as LoginResponse;
  }

  /** A connected socket for this token; rejects with the server's connect_error message. */
  async socket(token: string, headers?: Record<string, string>): Promise<TestSocket> {
    const socket: TestSocket = connectSocket(this.url, {
      auth: { token },
      ...(headers ? { extraHeaders: headers } : {}),
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    this.sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (error) => reject(error));
    });
    return socket;
  }

  /** Disconnects every socket this client opened. */
  closeSockets(): void {
    for (const s of this.sockets) s.disconnect();
  }
}

export class TestServer extends TestClient {
  constructor(readonly running: RunningServer) {
    super(running.url);
  }

  async close(): Promise<void> {
    this.closeSockets();
    await this.running.close();
  }
}

/** Resolves with the first event of this name that matches, or rejects after timeoutMs. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: TestSocket,
  event: E,
  match: (...args: Parameters<ServerToClientEvents[E]>) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<Parameters<ServerToClientEvents[E]>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, listener as never);
      reject(new Error(`no ${String(event)} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (...args: Parameters<ServerToClientEvents[E]>) => {
      if (!match(...args)) return;
      clearTimeout(timer);
      socket.off(event, listener as never);
      resolve(args);
    };
    socket.on(event, listener as never);
  });
}

/**
 * Resolves once every event the server published to this user's room before the call has reached
 * the socket: the 'user:updated' of an empty profile update travels the same way (server emitter ->
 * Redis -> socket) and arrives after them. Use it before asserting that something did NOT arrive,
 * instead of sleeping.
 */
export async function drainEvents(server: TestClient, socket: TestSocket, user: { token: string; id: number }) {
  const sentinel = nextEvent(socket, 'user:updated');
  const res = await server.call('PUT', `/api/users/${user.id}`, { token: user.token, body: {} });
  if (res.status !== 200) throw new Error(`sentinel update failed: ${res.status} ${res.text}`);
  await sentinel;
}

/** Polls until `check` answers something truthy (a condition, never a fixed sleep), or fails after `timeoutMs`. */
export async function until<T>(check: () => Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Collects every event of this name, to assert later that nothing arrived. */
export function collectEvents<E extends keyof ServerToClientEvents>(socket: TestSocket, event: E): unknown[][] {
  const seen: unknown[][] = [];
  socket.on(event, ((...args: unknown[]) => seen.push(args)) as never);
  return seen;
}

export async function flushRedis(): Promise<void> {
  const redis = new Redis(testRedisUrl());
  await redis.flushdb();
  redis.disconnect();
}
