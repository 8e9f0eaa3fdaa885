// Logs (docs/operations.md, "Logs"): a real server in production mode writes JSON lines to the
// destination it was given; each line of a request carries the id its X-Request-Id header names,
// its person's id and the instance; socket handlers' lines carry the socket's and the event's ids;
// and a token, a cookie or a password never reaches a line, even when a handler logs the request
// or an error that quotes them.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadBalancer } from '../../../scripts/lib/load-balancer';
import { type AppConfig, loadConfig } from '../config';
import { createLogger, INSTANCE, type Logger, logFormatFor } from '../core/logger';
import { startServer } from '../server';
import { startTestServer, TestClient, TestServer, testEnv, until } from '../test/harness';
import { authenticate } from './authenticate';
import { errorHandler } from './error-handler';
import { requestContext, requestLogging } from './request-context';

interface Line {
  level: string;
  time: string;
  name: string;
  instance: string;
  msg: string;
  requestId?: string;
  userId?: number;
  socketId?: string;
  eventId?: string;
  event?: string;
  status?: number;
  durationMs?: number;
  err?: { message: string };
}

/** A destination that keeps every line written to it. */
function capture() {
  const text: string[] = [];
  return {
    text,
    stream: { write: (line: string) => text.push(line) },
    /** Every line as JSON (a line that is not JSON fails here). */
    lines: (): Line[] => text.map((line) => JSON.parse(line) as Line),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('logs of a server in production mode', () => {
  const out = capture();
  let config: AppConfig;
  let server: TestServer;
  beforeAll(async () => {
    // Production as deployed, with dev login allowed so the test can sign people in.
    config = loadConfig(testEnv({ NODE_ENV: 'production', ALLOW_DEV_LOGIN: 'true', LOG_LEVEL: 'debug' }));
    const logger = createLogger('server', config.logLevel, { format: config.logFormat, destination: out.stream });
    server = new TestServer(await startServer(config, logger));
  });
  afterAll(() => server?.close());

  /** The lines of one request, once its closing line (method, path, status) is written. */
  const linesOf = (requestId: string) =>
    until(async () => {
      const mine = out.lines().filter((line) => line.requestId === requestId);
      return mine.some((line) => line.status !== undefined) ? mine : null;
    }, `the lines of request ${requestId}`);

  it('writes JSON lines; one request carries its X-Request-Id, its person and the instance', async () => {
    expect(config.logFormat).toBe('json');
    const login = await server.call('POST', '/api/auth/dev-login', { body: { username: `logs_${Date.now()}` } });
    const { user, token } = login.json;
    const res = await server.call('DELETE', `/api/users/${user.id}`, { token, body: { confirm: 'DELETE' } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') ?? '';
    expect(requestId).toMatch(UUID);

    const lines = await linesOf(requestId);
    // What the route wrote, and the request's own line, all with the same ids.
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        `account ${user.id} deleted`,
        `DELETE /api/users/${user.id} 200 ${lines.at(-1)?.durationMs} ms`,
      ]),
    );
    for (const line of lines) {
      expect(line).toMatchObject({ requestId, userId: user.id, instance: INSTANCE, name: 'server' });
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
    }
    expect(INSTANCE).toContain(`:${process.pid}:`);

    // The sign-in came before any token: its line has its own id and no person.
    const [signIn] = await linesOf(login.headers.get('x-request-id') ?? '');
    expect(signIn).toMatchObject({ msg: expect.stringMatching(/^POST \/api\/auth\/dev-login 200/) });
    expect(signIn?.userId).toBeUndefined();
    expect(out.text.join('')).not.toContain(token);
    console.log(
      `logs: ${lines.length} lines for one request, e.g. ${out.text.find((t) => t.includes(requestId) && t.includes('"status"'))?.trim()}`,
    );
  });

  it('keeps the ids of concurrent requests apart (40 at once, 4 times the database pool)', async () => {
    const people = await Promise.all(Array.from({ length: 40 }, () => server.login()));
    const answers = await Promise.all(
      people.map((p) => server.call('GET', `/api/users/${p.user.id}/podcasts`, { token: p.token })),
    );
    const ids = answers.map((res) => res.headers.get('x-request-id') ?? '');
    expect(new Set(ids).size).toBe(40);
    for (const [i, id] of ids.entries()) {
      const lines = await linesOf(id);
      for (const line of lines) expect(line.userId).toBe(people[i]?.user.id);
    }
  });

  it('does not take a client’s X-Request-Id: only a trusted proxy may name a request', async () => {
    const res = await server.call('GET', '/api/health', { headers: { 'X-Request-Id': 'chosen-by-the-client' } });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('gives lines written in socket handlers the person, the socket and the event', async () => {
    const { user, token } = await server.login();
    // A handler of the app's own kind, registered like chat's: it logs after awaiting.
    const logger = server.running.deps.logger;
    server.running.io.on('connection', (socket) =>
      socket.on('ping', async () => {
        await new Promise((resolve) => setImmediate(resolve));
        logger.info('test handler: ping handled');
      }),
    );
    const socket = await server.socket(token);
    for (let i = 0; i < 2; i++) await socket.emitWithAck('ping');
    const handled = await until(async () => {
      const lines = out.lines().filter((line) => line.msg === 'test handler: ping handled' && line.userId === user.id);
      return lines.length === 2 ? lines : null;
    }, 'the handler lines');
    for (const line of handled) {
      expect(line).toMatchObject({ socketId: socket.id, event: 'ping', instance: INSTANCE });
      expect(line.eventId).toMatch(UUID);
    }
    expect(handled[0]?.eventId).not.toBe(handled[1]?.eventId);
    expect(out.text.join('')).not.toContain(token);
  });
});

describe('request ids behind HAProxy (deploy/haproxy.cfg, as npm start with SERVER_INSTANCES runs it)', () => {
  it('makes a fresh id for each request, as HAProxy does: a client’s never reaches a server that trusts the proxy', async () => {
    const server = await startTestServer({ TRUST_PROXY: 'loopback' });
    const port = Number(new URL(server.url).port);
    const proxy = await startLoadBalancer({ port: 0, targets: [port], log: () => {} });
    try {
      const chosen = { 'X-Request-Id': 'chosen-by-the-client' };
      // Directly, from loopback (a trusted proxy's address), the server takes it...
      expect((await server.call('GET', '/api/health', { headers: chosen })).headers.get('x-request-id')).toBe(
        'chosen-by-the-client',
      );
      // ...through the proxy, never.
      const via = new TestClient(`http://127.0.0.1:${proxy.port}`);
      const ids = await Promise.all([1, 2].map(() => via.call('GET', '/api/health', { headers: chosen })));
      for (const res of ids) expect(res.headers.get('x-request-id')).toMatch(UUID);
      expect(ids[0]?.headers.get('x-request-id')).not.toBe(ids[1]?.headers.get('x-request-id'));
    } finally {
      await proxy.close();
      await server.close();
    }
  });
});

describe('log format and level', () => {
  it('is JSON in production and readable elsewhere; pino-pretty is never asked for in production', () => {
    const env = (extra: Record<string, string>) => testEnv({ ALLOW_DEV_LOGIN: 'true', ...extra });
    expect(loadConfig(env({ NODE_ENV: 'production' })).logFormat).toBe('json');
    expect(loadConfig(env({ NODE_ENV: 'development' })).logFormat).toBe('pretty');
    expect(loadConfig(env({ NODE_ENV: 'development', LOG_FORMAT: 'json' })).logFormat).toBe('json');
    expect(() => loadConfig(env({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }))).toThrow(/LOG_FORMAT/);
    expect(() => loadConfig(env({ LOG_FORMAT: 'xml' }))).toThrow(/LOG_FORMAT/);
    expect(() => logFormatFor('pretty', true)).toThrow(/development dependency/);

    const out = capture();
    createLogger('worker', 'info', { format: 'pretty', destination: out.stream }).warn('readable');
    expect(out.text[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(worker\): readable/);
  });

  it('never loads pino-pretty in production (a development dependency): only the logger names it, lazily', () => {
    const probe = `
      import { createRequire } from 'node:module';
      const { createLogger } = await import('./server/src/core/logger.ts');
      createLogger('server', 'info').info('probe');
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ pino: loaded.some((p) => p.includes('/pino/')), pretty: loaded.some((p) => p.includes('pino-pretty')) }));`;
    const run = (NODE_ENV: string) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, NODE_ENV },
      });
      expect(result.status, result.stderr).toBe(0);
      const [line, loaded] = result.stdout.trim().split('\n');
      return { line: line ?? '', loaded: JSON.parse(loaded ?? '{}') };
    };
    const production = run('production');
    expect(production.loaded).toEqual({ pino: true, pretty: false });
    expect(JSON.parse(production.line)).toMatchObject({ level: 'info', msg: 'probe' });
    expect(run('development')).toMatchObject({
      loaded: { pretty: true },
      line: expect.stringMatching(/INFO \(server\): probe$/),
    });
    // No other code of the server or the worker loads it.
    const naming = spawnSync('git', ['grep', '-l', 'pino-pretty', '--', 'server/src', 'worker/src', 'shared/src'], {
      encoding: 'utf8',
    }).stdout.split('\n');
    expect(naming.filter((name) => name && !name.endsWith('.test.ts'))).toEqual(['server/src/core/logger.ts']);
  });

  it('keeps LOG_LEVEL: nothing below it is written, nothing at all when silent', () => {
    const out = capture();
    const warn = createLogger('server', 'warn', { format: 'json', destination: out.stream });
    warn.debug('no');
    warn.info('no');
    warn.warn('yes');
    warn.error('yes');
    expect(out.lines().map((line) => [line.level, line.msg])).toEqual([
      ['warn', 'yes'],
      ['error', 'yes'],
    ]);
    const silent = createLogger('server', 'silent', { format: 'json', destination: out.stream });
    silent.error('no');
    expect(out.text).toHaveLength(2);
  });
});

describe('secrets in logs', () => {
  const out = capture();
  let server: TestServer;
  let app: http.Server;
  let client: TestClient;
  let logger: Logger;
  beforeAll(async () => {
    server = new TestServer(await startServer(loadConfig(testEnv()), createLogger('server', 'silent')));
    logger = createLogger('server', 'debug', { format: 'json', destination: out.stream });
    // The app's own middleware, session check and error handler, around handlers that log too much.
    const web = express();
    web.set('trust proxy', 'loopback');
    web.use(requestLogging(logger, web.get('trust proxy fn')));
    web.use('/api', express.json());
    web.use('/api', requestContext(server.running.deps.orm, server.running.deps));
    web.use('/api', authenticate(server.running.deps.sessions));
    // Deep code that knows nothing of the request, logging what it was handed.
    const upstream = (input: unknown) => {
      logger.warn('upstream: called with', input);
      throw Object.assign(new Error(`upstream refused ${JSON.stringify(input)}`), { input });
    };
    web.post('/api/careless', (req) => {
      logger.info('the request', req);
      logger.info('its body', req.body);
      logger.info(`${req.originalUrl} by ${req.get('authorization')} with cookies ${req.get('cookie')}`);
      upstream({ headers: req.headers, password: req.body.password, query: req.query });
    });
    web.use(errorHandler(logger));
    app = http.createServer(web);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    client = new TestClient(`http://127.0.0.1:${(app.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await new Promise((resolve) => app?.close(resolve));
    await server?.close();
  });

  it('never writes a token, an authorization header, a cookie, a password or an OAuth code', async () => {
    const { user, token } = await server.login();
    const secret = () => randomUUID().replaceAll('-', '');
    const [session, other, code, state, inPassword] = [secret(), secret(), secret(), secret(), secret()];
    // With a quote and a backslash: JSON escapes them, once in a message and twice on the line.
    const password = `pa"ss\\${inPassword}`;
    const res = await client.call('POST', `/api/careless?code=${code}&state=${state}&page=2`, {
      token,
      headers: { cookie: `podmatch_session=${session}; other=${encodeURIComponent(`x y ${other}`)}` },
      body: { username: 'someone', password },
    });
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id') ?? '';
    const lines = await until(async () => {
      const mine = out.lines().filter((line) => line.requestId === requestId);
      return mine.some((line) => line.status === 500) ? mine : null;
    }, 'the careless request’s lines');
    // Every line was written, with the request's ids, and the error with its message.
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining(['the request', 'its body', 'upstream: called with', 'POST /api/careless failed']),
    );
    for (const line of lines) expect(line.userId).toBe(user.id);
    expect(lines.find((line) => line.err)?.err?.message).toMatch(/^upstream refused/);

    const written = out.text.join('');
    for (const value of [token, session, other, inPassword, code, state]) {
      expect(written).not.toContain(value);
    }
    expect(written).toContain('[redacted]');
    // The URL of the logged request keeps what is not secret.
    expect(written).toContain('page=2');
    console.log(
      `logs: ${lines.length} lines of a careless handler, none with a secret; e.g. ${out.text.find((line) => line.includes('"status":500'))?.trim()}`,
    );
  });

  it('outside a request (a job calling Spotify or Bluesky), knows secrets by their field names and shapes', () => {
    const mine = capture();
    const jobLogger = createLogger('worker', 'info', { format: 'json', destination: mine.stream });
    const secret = () => randomUUID().replaceAll('-', '');
    const [bearer, access, refresh, client, dpop, cookie] = [
      secret(),
      secret(),
      secret(),
      secret(),
      secret(),
      secret(),
    ];
    // The shape of an HTTP client's error: the request it sent and the answer it got.
    const error = Object.assign(new Error(`token refresh failed: grant_type=refresh_token&refresh_token=${refresh}`), {
      config: { headers: { Authorization: `Bearer ${bearer}`, DPoP: dpop, Cookie: `sid=${cookie}` } },
      response: { status: 400, data: { access_token: access, error: 'invalid_grant' } },
      cause: new Error(`upstream said: {"client_secret":"${client}"}`),
    });
    jobLogger.warn(`spotify answered 400 to Bearer ${bearer}`, error);
    jobLogger.info('tokens', { spotify: { accessToken: access, refreshToken: refresh, expiresIn: 3600 } });
    const written = mine.text.join('');
    for (const value of [bearer, access, refresh, client, dpop, cookie]) expect(written).not.toContain(value);
    // What is not secret stays readable.
    expect(mine.lines()[0]).toMatchObject({
      err: {
        response: { status: 400, data: { error: 'invalid_grant' } },
        message: expect.stringContaining('grant_type'),
      },
    });
    expect(mine.lines()[1]).toMatchObject({ spotify: { expiresIn: 3600 } });
  });

  it('takes the X-Request-Id of a trusted proxy when it is a short safe token, and only then', async () => {
    const id = (res: { headers: Headers }) => res.headers.get('x-request-id');
    const via = (value: string) => client.call('GET', '/nothing', { headers: { 'X-Request-Id': value } });
    expect(id(await via('7f000001:a1b2_c3d4-5e6f'))).toBe('7f000001:a1b2_c3d4-5e6f');
    for (const bad of ['short', 'has space in it', `${'x'.repeat(65)}`, 'line"break\\n{"level":"error"}']) {
      expect(id(await via(bad))).toMatch(UUID);
    }
  });
});
