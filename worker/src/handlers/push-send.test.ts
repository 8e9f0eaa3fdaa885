// Push notifications end to end (docs/notifications.md): a real server (its outbox relay), a real
// worker, and a local Web Push service that checks each request's VAPID JWT and decrypts its
// payload with the subscription's keys as a browser would.
import type { EntityManager } from '@mikro-orm/postgresql';
import { createLogger } from '@server/core/logger';
import { decide } from '@server/core/matches/decide';
import { pushKeys } from '@server/core/notifications/push-state';
import {
  nextEvent,
  startTestServer,
  TEST_VAPID_KEYS,
  type TestServer,
  testEnv,
  uniqueName,
} from '@server/test/harness';
import { type LoginResponse, type PushPayload, PushPayloadSchema, pushFollowUpDedupeKey } from '@shared/index';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushService, startPushService, type TestPushSubscription } from '../../../scripts/lib/push-stand-in';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

/** One notification per conversation in this long (PUSH_MESSAGE_COOLDOWN_SECONDS; a minute in production). */
const COOLDOWN_MS = 8000;

describe('push.send', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let em: EntityManager;
  let redis: Redis;
  let push: PushService;

  beforeAll(async () => {
    push = await startPushService({ vapidPublicKey: TEST_VAPID_KEYS.publicKey });
    // Bursts of 50 messages from one person: past the production allowance of 30 per 10 s.
    server = await startTestServer({ CHAT_SEND_LIMIT: '100' });
    em = server.running.deps.orm.em.fork() as EntityManager;
    worker = await startWorker(
      loadWorkerConfig(testEnv({ WORKER_QUEUES: 'push', PUSH_MESSAGE_COOLDOWN_SECONDS: String(COOLDOWN_MS / 1000) })),
      createLogger('worker', 'silent'),
    );
    redis = new Redis(testEnv().REDIS_URL as string);
  });
  afterAll(async () => {
    redis?.disconnect();
    await worker?.close();
    await server?.close();
    await push?.close();
  });

  const exec = (sql: string, params: unknown[] = []) => em.fork().getConnection().execute(sql, params, 'all');

  /** A person with `devices` push subscriptions registered through the API. */
  async function personWithDevices(devices = 1) {
    const person = await server.login(uniqueName('Maya'));
    const subscriptions: (TestPushSubscription & { id: number })[] = [];
    for (let i = 0; i < devices; i++) {
      const subscription = push.newSubscription();
      const res = await server.call('POST', `/api/users/${person.user.id}/push-devices`, {
        token: person.token,
        body: { ...subscription, deviceLabel: `Test browser ${i + 1}` },
      });
      expect(res.status, res.text).toBe(200);
      subscriptions.push({ ...subscription, id: res.json.id });
    }
    return { person, subscriptions };
  }

  /** A mutual match between a and b (b's like makes it mutual); answers its id. */
  async function match(a: LoginResponse, b: LoginResponse): Promise<number> {
    const [show] = await exec(
      'insert into podcasts (name, verified_at, created_at) values (?, now(), now()) returning id',
      [uniqueName('Show')],
    );
    for (const id of [a.user.id, b.user.id]) {
      await exec('insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [id, show?.id]);
    }
    await exec(
      `insert into feed_candidates (user_id, candidate_id, score, raw, shared_podcast_ids)
       values (?, ?, 80, 0.5, array[?::int]), (?, ?, 80, 0.5, array[?::int])`,
      [a.user.id, b.user.id, show?.id, b.user.id, a.user.id, show?.id],
    );
    await decide(em.fork() as EntityManager, a.user.id, b.user.id, 'romantic', true);
    const mutual = await decide(em.fork() as EntityManager, b.user.id, a.user.id, 'romantic', true);
    if (!mutual.ok || !mutual.becameMutual) throw new Error('no mutual match');
    return mutual.row.id;
  }

  /** Maya with one phone, matched with Sam; the match's notification has reached the phone. */
  async function matchedWithPhone() {
    const {
      person: maya,
      subscriptions: [phone],
    } = await personWithDevices(1);
    const sam = await server.login(uniqueName('Sam'));
    const matchId = await match(maya, sam);
    await push.waitForPushes(1, { endpoint: phone?.endpoint });
    return { maya, sam, matchId, phone };
  }

  const send = (from: LoginResponse, matchId: number, content: string) =>
    server.call('POST', '/api/chat', { token: from.token, body: { matchId, senderId: from.user.id, content } });

  /** Pushes for this person waiting in the job outbox. */
  const staged = async (person: LoginResponse) => {
    const [row] = await exec(`select count(*)::int as n from job_outbox where payload->>'userId' = ?`, [
      String(person.user.id),
    ]);
    return row?.n as number;
  };

  const shown = (endpoint: string) =>
    push
      .received(endpoint)
      .map((r) => PushPayloadSchema.parse(r.payload))
      .filter((p) => p.type === 'show');

  /** The message notifications of one conversation a device received, each with when it arrived. */
  const messagePushes = (endpoint: string | undefined, matchId: number) =>
    push
      .received(endpoint)
      .map((r) => ({ at: r.at, payload: PushPayloadSchema.parse(r.payload) }))
      .flatMap(({ at, payload }) =>
        payload.type === 'show' && payload.kind === 'messages' && payload.tag === `chat-${matchId}`
          ? [{ at, ...payload }]
          : [],
      );

  /** Waits until the push queue has nothing waiting, delayed or running, then a moment for the last answers. */
  async function settle() {
    await server.running.deps.outbox.flush();
    for (let i = 0; i < 100; i++) {
      const counts = await Promise.all(
        ['wait', 'delayed', 'active', 'prioritized'].map((state) =>
          redis.zcard(`bull:push:${state}`).catch(() => redis.llen(`bull:push:${state}`)),
        ),
      );
      if (counts.every((n) => n === 0)) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the push queue did not settle');
  }

  it('a match and a message each make exactly one notification for an opted-in device, none for one with a focused tab', async () => {
    const {
      person: maya,
      subscriptions: [closed, focused],
    } = await personWithDevices(2);
    const other = await server.login(uniqueName('Sam'));
    // The second device has the app open and focused.
    const focus = await server.call('PUT', `/api/users/${maya.user.id}/push-devices/${focused?.id}/focus`, {
      token: maya.token,
      body: { focused: true },
    });
    expect(focus.status).toBe(200);
    const matchId = await match(maya, other);
    const [matchPush] = await push.waitForPushes(1, { endpoint: closed?.endpoint });
    expect(PushPayloadSchema.parse(matchPush?.payload)).toMatchObject({
      type: 'show',
      kind: 'matches',
      url: `/chat/${matchId}`,
    });
    expect(matchPush?.vapidKey).toBe(TEST_VAPID_KEYS.publicKey);

    expect((await send(other, matchId, 'Hi Maya, big fan of your taste in shows')).status).toBe(201);
    await push.waitForPushes(2, { endpoint: closed?.endpoint });
    await settle();
    const payloads = shown(closed?.endpoint ?? '');
    expect(payloads.map((p) => p.type === 'show' && p.kind)).toEqual(['matches', 'messages']);
    const message = payloads[1] as Extract<PushPayload, { type: 'show' }>;
    expect(message).toMatchObject({ tag: `chat-${matchId}`, url: `/chat/${matchId}`, body: 'Sent you a message' });
    // No text preview unless the person turned previews on.
    expect(JSON.stringify(push.received(closed?.endpoint))).not.toContain('big fan');
    expect(push.received(focused?.endpoint)).toEqual([]);
    const [device] = await exec('select last_used_at from push_devices where id = ?', [closed?.id]);
    expect(device?.last_used_at).not.toBeNull();
  });

  it('a burst of 50 messages in each of several conversations at once becomes one grouped notification per conversation', async () => {
    const {
      person: maya,
      subscriptions: [device],
    } = await personWithDevices(1);
    const senders = await Promise.all([1, 2, 3, 4].map(() => server.login(uniqueName('Sender'))));
    const matchIds: number[] = [];
    for (const sender of senders) matchIds.push(await match(maya, sender));
    await push.waitForPushes(4, { endpoint: device?.endpoint });
    // 200 sends at once, many times the server's database pool.
    const results = await Promise.all(
      senders.flatMap((sender, i) =>
        Array.from({ length: 50 }, (_, n) => send(sender, matchIds[i] as number, `message ${n + 1}`)),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    await push.waitForPushes(8, { endpoint: device?.endpoint });
    // Including a follow-up at a cooldown's end (below).
    await settle();
    for (const matchId of matchIds) {
      const [grouped, ...after] = messagePushes(device?.endpoint, matchId);
      // Grouped: it says how many arrived (most or all of the 50: the burst may straddle the 2 s wait).
      expect(grouped?.body).toMatch(/^Sent you \d+ messages$/);
      // Messages of a burst that outlasted the first job are announced once, when the conversation's
      // cooldown ends, with all 50 (the first one's delivery may have taken part of the cooldown).
      expect(after.length).toBeLessThanOrEqual(1);
      for (const next of after) {
        expect(next.body).toBe('Sent you 50 messages');
        expect(next.at - (grouped?.at ?? 0)).toBeGreaterThanOrEqual(COOLDOWN_MS - 1000);
      }
    }
  });

  it('messages within the cooldown are announced once it ends, as one more alert; none once read', async () => {
    const { maya, sam, matchId, phone } = await matchedWithPhone();
    // A slow push service: the first message's job is still running when the next message is stored.
    push.answerNextAfter(phone?.endpoint ?? '', 1500);
    expect((await send(sam, matchId, 'Hi!')).status).toBe(201);
    await push.waitForPushes(2, { endpoint: phone?.endpoint });
    // Maya dismissed it, say: a question right after must still reach her, at the cooldown's end.
    expect((await send(sam, matchId, 'Free tonight?')).status).toBe(201);
    await push.waitForPushes(3, { endpoint: phone?.endpoint, timeoutMs: COOLDOWN_MS + 10_000 });
    const [first, second] = messagePushes(phone?.endpoint, matchId);
    expect(first?.body).toBe('Sent you a message');
    expect(second?.body).toBe('Sent you 2 messages');
    // Another notification (its own id: the device alerts), not a repeat of the first.
    expect(second?.id).not.toBe(first?.id);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(COOLDOWN_MS - 1000);

    // The next one, within a cooldown (long here, to read within it), is read before it ends: the
    // follow-up waiting for its end finds nothing unread and shows nothing.
    await redis.set(pushKeys.cooldown(maya.user.id, `chat-${matchId}`), 'an earlier job', 'PX', 6_000);
    expect((await send(sam, matchId, 'Or tomorrow?')).status).toBe(201);
    // Its job has run and queued the follow-up (not the last one, which may still be finishing).
    const followUp = `bull:push:de:${pushFollowUpDedupeKey(maya.user.id, matchId)}`;
    const waiting = async () => {
      const jobId = await redis.get(followUp);
      return jobId !== null && (await redis.zscore('bull:push:delayed', jobId)) !== null;
    };
    await expect.poll(waiting, { timeout: 10_000 }).toBe(true);
    const read = await server.call('POST', `/api/matches/${matchId}/read`, { token: maya.token, body: { seq: 3 } });
    expect(read.status).toBe(200);
    await settle();
    expect(messagePushes(phone?.endpoint, matchId)).toHaveLength(2);
    expect(push.received(phone?.endpoint).at(-1)?.payload).toEqual({ type: 'clear', tag: `chat-${matchId}` });
  });

  it('previews show the text when turned on; quiet hours, pause and a kind switched off send nothing', async () => {
    const {
      person: maya,
      subscriptions: [device],
    } = await personWithDevices(1);
    const sam = await server.login(uniqueName('Sam'));
    const save = (preferences: object) =>
      server.call('PUT', `/api/users/${maya.user.id}/notifications/preferences`, {
        token: maya.token,
        body: {
          matches: true,
          messages: true,
          videos: true,
          previews: true,
          paused: false,
          quietHours: null,
          ...preferences,
        },
      });
    // Quiet now in Tokyo's clock: from an hour ago to an hour from now there.
    const tokyoHour = Number(
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', hourCycle: 'h23' }).format(
        new Date(),
      ),
    );
    const clock = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    expect(
      (await save({ quietHours: { start: clock(tokyoHour - 1), end: clock(tokyoHour + 2), timeZone: 'Asia/Tokyo' } }))
        .status,
    ).toBe(200);
    const matchId = await match(maya, sam);
    expect((await send(sam, matchId, 'During quiet hours')).status).toBe(201);
    await settle();
    expect(push.received(device?.endpoint)).toEqual([]);

    // Paused: nothing either (the message trigger does not even stage a job).
    expect((await save({ paused: true })).status).toBe(200);
    expect((await send(sam, matchId, 'While paused')).status).toBe(201);
    expect(await staged(maya)).toBe(0);
    await settle();
    expect(push.received(device?.endpoint)).toEqual([]);

    // Message pushes switched off: likewise nothing staged.
    expect((await save({ messages: false })).status).toBe(200);
    expect((await send(sam, matchId, 'With messages off')).status).toBe(201);
    expect(await staged(maya)).toBe(0);

    // Previews on, no quiet hours: the text, and the count of the rest.
    expect((await save({})).status).toBe(200);
    await redis.del(pushKeys.cooldown(maya.user.id, `chat-${matchId}`));
    expect((await send(sam, matchId, 'Now you can see this')).status).toBe(201);
    const [preview] = await push.waitForPushes(1, { endpoint: device?.endpoint });
    expect(preview?.payload).toMatchObject({ kind: 'messages', body: 'Now you can see this (+3 more)' });
  });

  it('a 410 removes the subscription; a 503 is retried and delivered once', async () => {
    const {
      person: maya,
      subscriptions: [gone, flaky],
    } = await personWithDevices(2);
    push.respondWith(gone?.endpoint ?? '', 410);
    push.respondWith(flaky?.endpoint ?? '', 503, 1);
    const sam = await server.login(uniqueName('Sam'));
    await match(maya, sam);
    await push.waitForPushes(1, { endpoint: flaky?.endpoint, timeoutMs: 20_000 });
    await settle();
    expect(push.received(flaky?.endpoint)).toHaveLength(1);
    const rows = await exec('select id from push_devices where user_id = ? order by id', [maya.user.id]);
    expect(rows.map((r) => r.id)).toEqual([flaky?.id]);
  });

  it('reading a conversation on one device clears its notification on the others', async () => {
    const { maya, sam, matchId, phone } = await matchedWithPhone();
    expect((await send(sam, matchId, 'Are you there?')).status).toBe(201);
    await push.waitForPushes(2, { endpoint: phone?.endpoint });
    const socket = await server.socket(maya.token);
    const read = nextEvent(socket, 'message:read', (e) => e.matchId === matchId);
    expect(
      (await server.call('POST', `/api/matches/${matchId}/read`, { token: maya.token, body: { seq: 1 } })).status,
    ).toBe(200);
    await read;
    const [, , clear] = await push.waitForPushes(3, { endpoint: phone?.endpoint });
    expect(clear?.payload).toEqual({ type: 'clear', tag: `chat-${matchId}` });
    // A second read of the same conversation has nothing shown to clear.
    await server.call('POST', `/api/matches/${matchId}/read`, { token: maya.token, body: { seq: 1 } });
    await settle();
    expect(push.received(phone?.endpoint)).toHaveLength(3);
  });
});
