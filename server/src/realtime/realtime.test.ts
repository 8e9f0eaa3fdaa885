import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectEvents, drainEvents, nextEvent, startTestServer, TestClock, type TestServer } from '../test/harness';

describe('socket connections', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('refuses a connection without a valid token', async () => {
    await expect(server.socket('')).rejects.toThrow('unauthorized');
    await expect(server.socket('not-a-token')).rejects.toThrow('unauthorized');
  });

  it('accepts a valid token and answers ping', async () => {
    const { token } = await server.login();
    const socket = await server.socket(token);
    const reply = await socket.timeout(5000).emitWithAck('ping');
    expect(new Date(reply.serverTime).getTime()).toBeGreaterThan(0);
  });

  it("puts every tab of a user in their room, and nobody else's", async () => {
    const a = await server.login();
    const b = await server.login();
    const tab1 = await server.socket(a.token);
    const tab2 = await server.socket(a.token);
    const other = await server.socket(b.token);
    const leaked = collectEvents(other, 'user:updated');

    const events = Promise.all([nextEvent(tab1, 'user:updated'), nextEvent(tab2, 'user:updated')]);
    const res = await server.call('PUT', `/api/users/${a.user.id}`, {
      token: a.token,
      body: { intent: 'professional' },
    });
    expect(res.status).toBe(200);
    const [[first], [second]] = await events;
    expect(first.intent).toBe('professional');
    expect(second.id).toBe(a.user.id);
    // b's own sentinel event arrives after anything published before it, a leak included.
    await drainEvents(server, other, { token: b.token, id: b.user.id });
    expect(leaked.map(([user]) => (user as { id: number }).id)).toEqual([b.user.id]);
  });

  it("disconnects a revoked token's sockets and only those", async () => {
    const a = await server.login();
    const sameUserOtherLogin = await server.login(a.user.username);
    const revoked = await server.socket(a.token);
    const survivor = await server.socket(sameUserOtherLogin.token);
    const ended = nextEvent(revoked, 'session:ended');
    const disconnected = new Promise<string>((resolve) => revoked.once('disconnect', resolve));
    await server.call('POST', '/api/auth/logout', { token: a.token });
    expect((await ended)[0]).toBe('logout');
    expect(await disconnected).toBe('io server disconnect');
    // The survivor still receives its room's events after the disconnect was sent.
    await drainEvents(server, survivor, { token: sameUserOtherLogin.token, id: a.user.id });
    expect(survivor.connected).toBe(true);
    await expect(server.socket(a.token)).rejects.toThrow('unauthorized');
  });

  it('refuses a socket whose login was logged out while it was connecting', async () => {
    const a = await server.login();
    const sessions = server.running.deps.sessions;
    const resolve = sessions.resolve.bind(sessions);
    // "Log out everywhere" lands after the token was checked and before the socket joined its rooms.
    let loggedOut = false;
    sessions.resolve = async (em, token) => {
      const session = await resolve(em, token);
      if (loggedOut) return session;
      loggedOut = true; // the HTTP call below resolves its token through here too
      const res = await server.call('POST', '/api/auth/logout-everywhere', { token: a.token });
      if (res.status !== 200 && res.status !== 204) throw new Error(`logout-everywhere: ${res.status} ${res.text}`);
      return session;
    };
    try {
      await expect(server.socket(a.token)).rejects.toThrow('unauthorized');
    } finally {
      sessions.resolve = resolve;
    }
  });
});

describe('socket at the end of its login', () => {
  let server: TestServer;
  // Logins that last a minute, on a clock the test moves: no waiting for them to end.
  const clock = new TestClock();
  const ttlMs = 60_000;
  beforeAll(async () => {
    server = await startTestServer(
      { TOKEN_TTL_DAYS: String(ttlMs / 86_400_000) },
      { clock: clock.now, setTimer: clock.setTimer },
    );
  });
  afterAll(() => server.close());

  it('is told the session expired and disconnected when the session expires, not before; others stay', async () => {
    const a = await server.login();
    const aSocket = await server.socket(a.token);
    const aEnded = nextEvent(aSocket, 'session:ended');
    const aGone = new Promise<string>((resolve) => aSocket.once('disconnect', resolve));
    clock.advance(20_000);
    const b = await server.login();
    const bSocket = await server.socket(b.token);
    const bEnded = nextEvent(bSocket, 'session:ended');
    const bGone = new Promise<string>((resolve) => bSocket.once('disconnect', resolve));

    // A moment before a's login ends: nothing ends, and a's socket still gets its room's events.
    clock.advance(ttlMs - 20_000 - 1);
    await drainEvents(server, aSocket, { token: a.token, id: a.user.id });
    expect(aSocket.connected).toBe(true);

    clock.advance(1000);
    const [reason] = await aEnded;
    expect(reason).toBe('expired');
    expect(await aGone).toBe('io server disconnect');
    // b's login began later: its socket is still there, and hears its room.
    await drainEvents(server, bSocket, { token: b.token, id: b.user.id });
    expect(bSocket.connected).toBe(true);
    await expect(server.socket(a.token)).rejects.toThrow('unauthorized');

    clock.advance(20_000);
    expect((await bEnded)[0]).toBe('expired');
    expect(await bGone).toBe('io server disconnect');
  });
});
