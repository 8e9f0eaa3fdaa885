// Push notifications across two server processes and a worker killed mid-way (docs/notifications.md):
// messages sent through both servers stage their pushes with the messages (the job outbox), the
// worker is SIGKILLed while those jobs wait or run and another starts: every conversation still gets
// its one grouped notification (a repeat only as the same notification, which does not alert twice),
// and no job fails.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { exited, failedJobs, startServerProcess, startWorkerProcess } from '@server/test/app-process';
import { mutualPair, type Person, sendRest } from '@server/test/chat-flow';
import { TEST_VAPID_KEYS, TestClient, testEnv } from '@server/test/harness';
import { ownMigratedDatabase } from '@server/test/own-database';
import { freePort } from '@server/test/spotify-flow';
import { PushPayloadSchema } from '@shared/index';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PushService, startPushService } from '../../scripts/lib/push-stand-in';

const CONVERSATIONS = 8;
const MESSAGES = 10;

describe('pushes across two servers and a worker restart', () => {
  let database: Awaited<ReturnType<typeof ownMigratedDatabase>>;
  let redis: Redis;
  let push: PushService;
  let tmp: string;
  let env: Record<string, string>;
  let clients: TestClient[];
  const servers: ChildProcess[] = [];
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    database = await ownMigratedDatabase('podmatch_test_push_faults');
    push = await startPushService({ vapidPublicKey: TEST_VAPID_KEYS.publicKey });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-push-'));
    env = {
      DATABASE_URL: database.url,
      MEDIA_DIR: path.join(tmp, 'media'),
      CHAT_SEND_LIMIT: '1000',
      // A killed worker's running job is picked up again after this.
      WORKER_LOCK_SECONDS: '5',
    };
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    const ports = [await freePort(), await freePort()];
    servers.push(...(await Promise.all(ports.map((port) => startServerProcess(port, env)))));
    clients = ports.map((port) => new TestClient(`http://127.0.0.1:${port}`));
    worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'silent' }, redis);
  }, 120_000);

  afterAll(async () => {
    for (const child of [...servers, worker]) {
      if (child && child.exitCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    redis?.disconnect();
    await push?.close();
    await database?.drop();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('every conversation gets one grouped notification, never a second one', async () => {
    const [first, second] = clients as [TestClient, TestClient];
    // Each recipient registers a device on the other server than the one their match was made on.
    const conversations: { from: Person; to: Person; matchId: number; endpoint: string }[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const { a, b, matchId } = await mutualPair(first, database.url);
      const subscription = push.newSubscription();
      const res = await second.call('POST', `/api/users/${b.id}/push-devices`, {
        token: b.token,
        body: { ...subscription, deviceLabel: 'Phone' },
      });
      expect(res.status, res.text).toBe(200);
      conversations.push({ from: a, to: b, matchId, endpoint: subscription.endpoint });
    }

    // Every conversation's messages at once, alternating between the two servers.
    const sends = await Promise.all(
      conversations.flatMap((c) =>
        Array.from({ length: MESSAGES }, (_, n) =>
          sendRest(clients[n % 2] as TestClient, c.from, c.matchId, `hi ${n}`),
        ),
      ),
    );
    expect(sends.filter((r) => r.status !== 201)).toEqual([]);

    // The pushes wait 2 s for more messages: the worker dies while they wait (or run), another starts.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    worker?.kill('SIGKILL');
    await exited(worker as ChildProcess);
    worker = await startWorkerProcess({ ...env, LOG_LEVEL: 'silent' }, redis);

    await push.waitForPushes(CONVERSATIONS, { timeoutMs: 30_000 });
    // Time for a duplicate to show itself: a stalled job's retry runs within the 5 s lock.
    await new Promise((resolve) => setTimeout(resolve, 7000));
    for (const c of conversations) {
      const payloads = push.received(c.endpoint).map((r) => PushPayloadSchema.parse(r.payload));
      // One notification: the worker killed just after the push service answered, before it recorded
      // the device as reached, sends it again once restarted (at least once), as the same notification
      // (one id), which the device updates without alerting twice (client/src/service-worker).
      expect(payloads.length, `conversation ${c.matchId}`).toBeGreaterThanOrEqual(1);
      expect(payloads.length, `conversation ${c.matchId}`).toBeLessThanOrEqual(2);
      const ids = [...new Set(payloads.map((p) => (p.type === 'show' ? p.id : undefined)))];
      expect(ids, `conversation ${c.matchId}`).toEqual([expect.any(String)]);
      expect(payloads[0]).toMatchObject({ type: 'show', kind: 'messages', url: `/chat/${c.matchId}` });
    }
    expect(await failedJobs(redis)).toBe(0);
  });
});
