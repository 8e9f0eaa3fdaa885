// Rate limits (docs/security.md): bursts get 429s with Retry-After, the counts are one across two
// server instances (an in-process server and a real server process, sharing Redis), and a forged
// X-Forwarded-For neither dodges a limit nor spends someone else's. Both servers sit behind "one
// proxy hop" (TRUST_PROXY=1): the test plays the proxy by appending the client's address.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { api, CHAT_TEXTS, RATE_LIMIT_TEXTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appProcessArgs, PROCESS_START_TIMEOUT_MS } from '../test/app-process';
import { type Person, sendSocket } from '../test/chat-flow';
import { shareAShow } from '../test/feed-fixture';
import { startTestServer, TestClient, type TestServer, testEnv, uniqueName, until } from '../test/harness';
import { connectSpotify, freePort, spotifyServerEnv, TestBrowser } from '../test/spotify-flow';
import { makeShow, SpotifyStandIn } from '../test/spotify-stand-in';
import { addressKey, RATE_LIMIT_POLICIES } from './rate-limits';

/** The real allowances; the proxy's address header is believed for one hop. */
const ENV = { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1', CHAT_SEND_LIMIT: '1000' };

/** A fresh documentation-range address per call, so no other test's traffic shares its counters. */
const address = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;
/** A fresh /64 of the IPv6 documentation range per call (2001:db8:x:y::/64): its address `rest`, and the next /64's. */
function prefix64() {
  const [x, y] = [randomInt(0, 0xffff), randomInt(0, 0xffff)];
  return {
    at: (rest: string) => `2001:db8:${x.toString(16)}:${y.toString(16)}:${rest}`,
    next: (rest: string) => `2001:db8:${(x + 1).toString(16)}:${y.toString(16)}:${rest}`,
  };
}
/** What the proxy sends for a client at `ip` that itself sent `claimed` in the header. */
const via = (ip: string, claimed?: string) => ({ 'x-forwarded-for': claimed ? `${claimed}, ${ip}` : ip });

async function signIn(server: TestClient, ip: string, username = uniqueName()): Promise<Person> {
  const res = await server.call('POST', '/api/auth/dev-login', { body: { username }, headers: via(ip) });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return { token: res.json.token, id: res.json.user.id };
}

/** A person with the two podcasts of an OPML export in their library: their entry ids. */
async function withLibrary(server: TestClient, who: Person, ip: string): Promise<number[]> {
  const form = new FormData();
  const opml = fs.readFileSync(path.join(import.meta.dirname, '../features/podcasts/fixtures/overcast.opml'));
  form.append('opml', new Blob([opml]), 'subscriptions.opml');
  const imported = await server.call('POST', `/api/users/${who.id}/podcasts/opml`, {
    token: who.token,
    headers: via(ip),
    form,
  });
  if (imported.status !== 202) throw new Error(`import failed: ${imported.status} ${imported.text}`);
  const list = await server.call('GET', `/api/users/${who.id}/podcasts`, { token: who.token, headers: via(ip) });
  return (list.json as { id: number }[]).map((entry) => entry.id);
}

async function startServerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; client: TestClient }> {
  const port = await freePort();
  const child = spawn(process.execPath, appProcessArgs('server'), {
    env: { ...process.env, ...testEnv({ ...env, PORT: String(port), LOG_LEVEL: 'warn' }) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      output = (output + chunk).slice(-4000);
    });
  }
  const client = new TestClient(`http://127.0.0.1:${port}`);
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`the second server exited: ${output}`);
      return fetch(`${client.url}/api/health`).then(
        () => true,
        () => false,
      );
    },
    'the second server to listen',
    PROCESS_START_TIMEOUT_MS,
  );
  return { child, client };
}

describe('rate limits across two server instances', () => {
  let one: TestServer;
  let two: TestClient;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    one = await startTestServer(ENV);
    ({ child, client: two } = await startServerProcess(ENV));
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await one?.close();
  });

  it('a burst of likes from one person: the allowance is one count for both instances, then 429 with Retry-After', async () => {
    const ip = address();
    const [liker, liked] = await Promise.all([signIn(one, ip), signIn(one, ip)]);
    await shareAShow([[liker, liked]]);
    const allowance = RATE_LIMIT_POLICIES.swipes.perUser.points;
    const like = (server: TestClient) =>
      server.call('POST', '/api/matches', {
        token: liker.token,
        headers: via(ip),
        body: { user1Id: liker.id, user2Id: liked.id, intent: 'platonic', user1Liked: true },
      });
    // Alternating instances, all at once.
    const results = await Promise.all(Array.from({ length: allowance + 10 }, (_, i) => like(i % 2 ? two : one)));
    const refused = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(allowance);
    expect(refused).toHaveLength(10);
    expect(refused[0]?.json).toEqual({ error: 'rate_limited', message: RATE_LIMIT_TEXTS.swipes });
    const retryAfter = Number(refused[0]?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Someone else at the same address has their own allowance.
    const other = await signIn(two, ip);
    const theirs = await two.call('POST', '/api/matches', {
      token: other.token,
      headers: via(ip),
      body: { user1Id: other.id, user2Id: liked.id, intent: 'platonic', user1Liked: true },
    });
    expect(theirs.status).not.toBe(429);
  });

  it('a mass reporter gets 429s after the allowance, counted across both instances', async () => {
    const ip = address();
    const reporter = await signIn(one, ip);
    const targets = await Promise.all(Array.from({ length: 12 }, () => signIn(two, address())));
    await shareAShow(targets.map((target) => [reporter, target]));
    const results = await Promise.all(
      targets.map((target, i) =>
        (i % 2 ? two : one).call('POST', '/api/reports', {
          token: reporter.token,
          headers: via(ip),
          body: { reportedId: target.id, reason: 'spam' },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(RATE_LIMIT_POLICIES.reports.perUser.points);
    expect(statuses.filter((s) => s === 429)).toHaveLength(12 - RATE_LIMIT_POLICIES.reports.perUser.points);
    expect(results.find((r) => r.status === 429)?.json.message).toBe(RATE_LIMIT_TEXTS.reports);
  });

  it('a spoofed X-Forwarded-For neither dodges the per-address limit nor spends the victim’s allowance', async () => {
    // Sign-in from one address: each try claims a different address in the header it sends.
    const attacker = address();
    const victim = address();
    const allowance = RATE_LIMIT_POLICIES.signIn.perIp.points;
    const tries = await Promise.all(
      Array.from({ length: allowance + 5 }, (_, i) =>
        (i % 2 ? two : one).call('POST', '/api/auth/dev-login', {
          // Claiming the victim's address, or a fresh one each time.
          headers: via(attacker, i % 3 === 0 ? victim : address()),
          body: { username: uniqueName('bot') },
        }),
      ),
    );
    expect(tries.filter((r) => r.status === 200)).toHaveLength(allowance);
    expect(tries.filter((r) => r.status === 429)).toHaveLength(5);
    expect(tries.find((r) => r.status === 429)?.json.message).toBe(RATE_LIMIT_TEXTS.signIn);
    // The victim, whose address the attacker claimed, signs in as usual.
    const victimTry = await one.call('POST', '/api/auth/dev-login', {
      headers: via(victim),
      body: { username: uniqueName() },
    });
    expect(victimTry.status).toBe(200);
    // A thousand sign-ins, each making an account: longer than the default on two busy cores.
  }, 60_000);

  it('one account name cannot be tried without end, whichever addresses the tries come from', async () => {
    const username = uniqueName('target');
    const allowance = RATE_LIMIT_POLICIES.signIn.perUser.points;
    const tries = await Promise.all(
      Array.from({ length: allowance + 3 }, (_, i) =>
        (i % 2 ? two : one).call('POST', '/api/auth/dev-login', { headers: via(address()), body: { username } }),
      ),
    );
    expect(tries.filter((r) => r.status === 200)).toHaveLength(allowance);
    expect(tries.filter((r) => r.status === 429)).toHaveLength(3);
  });

  it('messages: one address’s allowance is spent by everyone there together, REST and socket, on either instance', async () => {
    // A small scale so that a burst reaches the per-address allowance (6,000 a minute at scale 1).
    const scale = 0.01;
    const [first, second] = await Promise.all([
      startTestServer({ ...ENV, RATE_LIMIT_SCALE: String(scale) }),
      startTestServer({ ...ENV, RATE_LIMIT_SCALE: String(scale) }),
    ]);
    try {
      const ip = address();
      const [a, b] = await Promise.all([signIn(first, address()), signIn(second, address())]);
      const like = (from: Person, to: Person) =>
        first.call('POST', '/api/matches', {
          token: from.token,
          headers: via(address()),
          body: { user1Id: from.id, user2Id: to.id, intent: 'romantic', user1Liked: true },
        });
      await shareAShow([[a, b]]);
      await like(a, b);
      const matchId = (await like(b, a)).json.id as number;
      const allowance = Math.round(RATE_LIMIT_POLICIES.messages.perIp.points * scale);
      // b sends over a socket from the same address (as many as b's own event allowance lets
      // through at this scale), a over REST on either instance.
      const socketSends = Math.round(RATE_LIMIT_POLICIES.socketEvents.perUser.points * scale);
      const bSocket = await second.socket(b.token, via(ip));
      const sends = await Promise.all(
        Array.from({ length: allowance + 4 }, async (_, i) => {
          if (i % 3 === 0 && i / 3 < socketSends) {
            const ack = await sendSocket(bSocket, matchId, `m${i}`);
            return ack.ok ? { status: 201, message: '' } : { status: ack.error.status, message: ack.error.message };
          }
          const res = await (i % 2 ? second : first).call('POST', '/api/chat', {
            token: a.token,
            headers: via(ip),
            body: { matchId, senderId: a.id, content: `m${i}` },
          });
          return { status: res.status, message: res.json.message };
        }),
      );
      expect(sends.filter((r) => r.status === 201)).toHaveLength(allowance);
      expect(sends.filter((r) => r.status === 429)).toHaveLength(4);
      expect(sends.find((r) => r.status === 429)?.message).toBe(CHAT_TEXTS.rateLimited);
      // From another address the same person still sends.
      const elsewhere = await second.call('POST', '/api/chat', {
        token: a.token,
        headers: via(address()),
        body: { matchId, senderId: a.id, content: 'from home' },
      });
      expect(elsewhere.status).toBe(201);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('every limited endpoint refuses past its allowance, before validation or access rules', async () => {
    // A tiny scale: a call or a few per person and address (an allowance floors at 1).
    const scale = 0.001;
    const tiny = await startTestServer({ ...ENV, RATE_LIMIT_SCALE: String(scale) });
    try {
      // Every endpoint with a rateLimit in its definition (the contract).
      const limited = Object.values(api).flatMap((endpoint) =>
        endpoint.rateLimit ? [{ endpoint, limit: endpoint.rateLimit.name }] : [],
      );
      expect(limited.length).toBeGreaterThan(15);
      for (const { endpoint, limit } of limited) {
        const policy: { perUser?: { points: number }; perIp: { points: number }; message: string } =
          RATE_LIMIT_POLICIES[limit];
        const allowances = [policy.perIp, ...(policy.perUser ? [policy.perUser] : [])];
        const allowed = Math.min(...allowances.map((a) => Math.max(1, Math.round(a.points * scale))));
        const ip = address();
        // Sign in at another address: sign-in is itself limited.
        const who = await signIn(one, address());
        const path = endpoint.path.replace(/:\w+/g, String(who.id));
        const body = limit === 'signIn' ? { username: uniqueName() } : {};
        const call = () =>
          tiny.call(endpoint.method, path, {
            token: who.token,
            headers: via(ip),
            ...(endpoint.method === 'GET' ? {} : { body }),
          });
        const what = `${endpoint.method} ${endpoint.path}`;
        for (let i = 0; i < allowed; i++) expect((await call()).status, what).not.toBe(429);
        const refused = await call();
        expect(refused.status, what).toBe(429);
        expect(refused.json.message).toBe(policy.message);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await tiny.close();
    }
  });
  it('library edits past the allowance: 429 with Retry-After, counted across both instances', async () => {
    const ip = address();
    const me = await signIn(one, ip);
    const entries = await withLibrary(one, me, ip);
    const allowance = RATE_LIMIT_POLICIES.libraryEdits.perUser.points;
    const edits = await Promise.all(
      Array.from({ length: allowance + 5 }, (_, i) =>
        (i % 2 ? two : one).call('PUT', `/api/user-podcasts/${entries[i % entries.length]}`, {
          token: me.token,
          headers: via(ip),
          body: { hidden: i % 4 < 2 },
        }),
      ),
    );
    const statuses = edits.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(allowance);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = edits.find((r) => r.status === 429);
    expect(refused?.json).toEqual({ error: 'rate_limited', message: RATE_LIMIT_TEXTS.libraryEdits });
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Removing counts as an edit too.
    const remove = await one.call('DELETE', `/api/user-podcasts/${entries[0]}`, { token: me.token, headers: via(ip) });
    expect(remove.status).toBe(429);
  });

  it('Spotify refreshes past the allowance: 429 with Retry-After', async () => {
    const standIn = new SpotifyStandIn();
    await standIn.start();
    const port = await freePort();
    const spotify = await startTestServer({ ...ENV, ...spotifyServerEnv(standIn, port) });
    try {
      const ip = address();
      const me = await signIn(spotify, ip);
      const accountId = uniqueName('sp');
      standIn.addAccount({
        id: accountId,
        displayName: 'Listener',
        shows: [{ addedAt: '2026-01-01T00:00:00Z', show: makeShow(`${accountId}show1`, 'Show One') }],
      });
      standIn.signedInAs = accountId;
      const { finish } = await connectSpotify(spotify.url, me.token, { browser: new TestBrowser(via(ip)) });
      expect(finish?.status).toBe(200);
      const allowance = RATE_LIMIT_POLICIES.spotifySyncs.perUser.points;
      const refreshes = await Promise.all(
        Array.from({ length: allowance + 3 }, () =>
          spotify.call('POST', `/api/users/${me.id}/spotify/sync`, { token: me.token, headers: via(ip) }),
        ),
      );
      const statuses = refreshes.map((r) => r.status);
      expect(statuses.filter((s) => s === 202)).toHaveLength(allowance);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      const refused = refreshes.find((r) => r.status === 429);
      expect(refused?.json.message).toBe(RATE_LIMIT_TEXTS.spotifySyncs);
      expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await spotify.close();
      await standIn.close();
    }
  });

  it('IPv6 clients count by their /64 (HTTP and socket); an IPv4-mapped address counts as the IPv4 one', async () => {
    // A small scale: 60 messages a minute per address, 3 Spotify code exchanges per 10 minutes.
    const scale = 0.01;
    const small = await startTestServer({ ...ENV, RATE_LIMIT_SCALE: String(scale) });
    // Until Redis is ready, a server counts in memory (the insurance): the counts below are Redis's.
    await until(async () => small.running.deps.redis.status === 'ready', 'Redis ready');
    try {
      // Code exchanges (no account needed), from three addresses of one /64: one allowance.
      const exchanges = Math.round(RATE_LIMIT_POLICIES.codeExchange.perIp.points * scale);
      const net = prefix64();
      const exchange = (ip: string) =>
        small.call('POST', '/api/auth/spotify/exchange', { headers: via(ip), body: { code: 'made-up' } });
      const spent = [];
      for (let i = 0; i < exchanges; i++) spent.push((await exchange(net.at(`:${i + 1}`))).status);
      expect(spent.every((status) => status === 400)).toBe(true);
      expect((await exchange(net.at('ffff:ffff:ffff:ffff'))).status).toBe(429);
      // The next /64 has its own.
      expect((await exchange(net.next(':1'))).status).toBe(400);

      // The same for IPv4 written both ways.
      const v4 = address();
      for (let i = 0; i < exchanges; i++) expect((await exchange(v4)).status).toBe(400);
      expect((await exchange(`::ffff:${v4}`)).status).toBe(429);

      // Messages over a socket and over REST from two addresses of one /64 share its allowance.
      const [a, b] = await Promise.all([signIn(small, address()), signIn(small, address())]);
      const like = (from: Person, to: Person) =>
        small.call('POST', '/api/matches', {
          token: from.token,
          headers: via(address()),
          body: { user1Id: from.id, user2Id: to.id, intent: 'professional', user1Liked: true },
        });
      await shareAShow([[a, b]]);
      await like(a, b);
      const matchId = (await like(b, a)).json.id as number;
      const allowance = Math.round(RATE_LIMIT_POLICIES.messages.perIp.points * scale);
      const home = prefix64();
      const bSocket = await small.socket(b.token, via(home.at(':b')));
      const overSocket = await sendSocket(bSocket, matchId, 'from the socket');
      expect(overSocket.ok).toBe(true);
      const rest = (ip: string, content: string) =>
        small.call('POST', '/api/chat', {
          token: a.token,
          headers: via(ip),
          body: { matchId, senderId: a.id, content },
        });
      const sends = await Promise.all(Array.from({ length: allowance }, (_, i) => rest(home.at(`:a:${i}`), `m${i}`)));
      expect(sends.filter((r) => r.status === 201)).toHaveLength(allowance - 1);
      expect(sends.filter((r) => r.status === 429)).toHaveLength(1);
      expect((await rest(home.next(':a'), 'from the next /64')).status).toBe(201);
    } finally {
      await small.close();
    }
  });
});

describe('addressKey', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::ffff:c633:6407', '198.51.100.7'],
    ['2001:db8:1:2::5', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:1::', '2001:db8:0:0::/64'],
    ['2001:db8::198.51.100.7', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
