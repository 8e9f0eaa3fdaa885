// Chat across two server instances (docs/chat.md): one test server in this process and one real
// server process (`node --import tsx server/src/main.ts`), sharing PostgreSQL and Redis as a
// deployment with N servers does. Messages, typing and presence cross from one to the other through
// Redis, and the send rate limit is one count for both.
import { type ChildProcess, spawn } from 'node:child_process';
import { CHAT_TEXTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appProcessArgs, PROCESS_START_TIMEOUT_MS } from '../../test/app-process';
import { EventLog, emitRaw, mutualPair, sendRest, sendSocket } from '../../test/chat-flow';
import { startTestServer, TestClient, type TestServer, testEnv, until } from '../../test/harness';
import { freePort } from '../../test/spotify-flow';

/** A low limit, so that the test reaches it: 5 sends per person per minute, on both instances. */
const LIMIT = { CHAT_SEND_LIMIT: '5', CHAT_SEND_WINDOW_SECONDS: '60' };

describe('chat across two server instances', () => {
  let one: TestServer;
  let two: TestClient;
  let child: ChildProcess | undefined;
  let childOutput = '';

  beforeAll(async () => {
    one = await startTestServer(LIMIT);
    const port = await freePort();
    child = spawn(process.execPath, appProcessArgs('server'), {
      env: { ...process.env, ...testEnv({ ...LIMIT, PORT: String(port), LOG_LEVEL: 'warn' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        childOutput = (childOutput + chunk).slice(-4000);
      });
    }
    two = new TestClient(`http://127.0.0.1:${port}`);
    // Listening: any HTTP answer (health says 503 without a worker process, which is fine here).
    await until(
      async () => {
        if (child?.exitCode !== null) throw new Error(`the second server exited: ${childOutput}`);
        return fetch(`${two.url}/api/health`).then(
          () => true,
          () => false,
        );
      },
      'the second server to listen',
      PROCESS_START_TIMEOUT_MS,
    );
  });

  afterAll(async () => {
    two?.closeSockets();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await one?.close();
  });

  it('a message sent through one instance (socket and REST) reaches the other person on the other', async () => {
    const { a, b, matchId } = await mutualPair(one);
    const aSocket = await one.socket(a.token);
    const bSocket = await two.socket(b.token);
    const aLog = new EventLog(aSocket, ['message:new', 'typing']);
    const bLog = new EventLog(bSocket, ['message:new', 'typing']);

    const viaSocket = await sendSocket(aSocket, matchId, 'over the socket of instance 1');
    expect(viaSocket.ok, JSON.stringify(viaSocket)).toBe(true);
    const viaRest = await sendRest(one, a, matchId, 'over REST of instance 1');
    expect(viaRest.status, viaRest.text).toBe(201);
    aSocket.emit('typing', { matchId, typing: true });
    await bLog.until((l) => l.messages(matchId).length === 2 && l.of('typing').length === 1, 'both at b on instance 2');
    expect(bLog.messages(matchId).map((m) => [m.seq, m.content])).toEqual([
      [1, 'over the socket of instance 1'],
      [2, 'over REST of instance 1'],
    ]);
    expect(bLog.of('typing')).toEqual([{ matchId, userId: a.id, typing: true }]);

    // And back: b answers through instance 2, a hears it on instance 1.
    const answer = await sendSocket(bSocket, matchId, 'from instance 2');
    expect(answer.ok).toBe(true);
    await aLog.until((l) => l.messages(matchId).some((m) => m.seq === 3), 'the answer at a on instance 1');
    expect(aLog.messages(matchId).map((m) => m.seq)).toEqual([1, 2, 3]);
  });

  it('presence is answered for sockets on any instance, and pushed from the other instance', async () => {
    const { a, b, matchId } = await mutualPair(one);
    const aSocket = await one.socket(a.token);
    const aLog = new EventLog(aSocket, ['presence']);
    expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: false } });

    const bSocket = await two.socket(b.token);
    await aLog.until((l) => l.of('presence').length === 1, 'b online, announced by instance 2');
    expect(aLog.of('presence')).toEqual([{ userId: b.id, online: true }]);
    // Instance 1 has no socket of b: it asks instance 2 through the Redis adapter.
    expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: true } });

    bSocket.disconnect();
    await aLog.until((l) => l.of('presence').length === 2, 'b offline, announced by instance 2');
    expect(aLog.of('presence').at(-1)).toEqual({ userId: b.id, online: false });
    expect(await emitRaw(aSocket, 'presence:get', { matchId })).toEqual({ ok: true, data: { online: false } });
  });

  it('the send rate limit is one count across both instances: 429 with Retry-After over REST, a 429 ack over the socket', async () => {
    const { a, b, matchId } = await mutualPair(one);
    const onTwo = await two.socket(a.token);
    for (let i = 0; i < 3; i++) expect((await sendRest(one, a, matchId, `rest ${i}`)).status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await sendSocket(onTwo, matchId, `socket ${i}`)).ok).toBe(true);

    const refused = await sendRest(one, a, matchId, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: 'rate_limited', message: CHAT_TEXTS.rateLimited });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await sendSocket(onTwo, matchId, 'one too many')).toEqual({
      ok: false,
      error: { status: 429, code: 'rate_limited', message: CHAT_TEXTS.rateLimited },
    });
    expect((await sendRest(two, a, matchId, 'still too many')).status).toBe(429);

    // Only the five that were allowed are stored; the other person has an allowance of their own.
    const listed = await one.call('GET', `/api/users/${a.id}/matches/${matchId}/messages`, { token: a.token });
    expect(listed.json.map((m: { seq: number }) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await sendRest(two, b, matchId, 'my turn')).json.seq).toBe(6);
  });
});
