// Video intro routes against a real server, real Redis (BullMQ) and real ffprobe: generation
// requests, project status, and uploads refused for every bad file with nothing stored.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type LoginResponse, QUEUES, VIDEO_TEXTS, WORKER_HEARTBEAT } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { sql } from '../../core/db/sql';
import { filesUnder } from '../../test/files';
import { startTestServer, type TestServer, uniqueName, until } from '../../test/harness';
import { testRedisUrl } from '../../test/test-stack';

const PROJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A real clip made by ffmpeg: `seconds` long, with a test pattern and a tone. */
function clip(file: string, seconds: number, size = '320x240'): string {
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=10`],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440'],
    ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', file],
  ]);
  return file;
}

describe('video intros', () => {
  let server: TestServer;
  let mediaDir: string;
  let uploadDir: string;
  let tmp: string;
  let redis: Redis;
  let queue: Queue;
  let valid: Buffer;
  let long: Buffer;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-videos-test-'));
    mediaDir = path.join(tmp, 'media');
    uploadDir = path.join(tmp, 'uploads');
    server = await startTestServer({ MEDIA_DIR: mediaDir, UPLOAD_TEMP_DIR: uploadDir });
    redis = new Redis(testRedisUrl());
    queue = new Queue(QUEUES.video, { connection: redis });
    valid = await fs.readFile(clip(path.join(tmp, 'valid.mp4'), 2));
    long = await fs.readFile(clip(path.join(tmp, 'long.mp4'), 31, '64x64'));
  }, 60_000);
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await server.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  /** A live video worker, as far as the service status can tell (its heartbeat). */
  const workerAlive = () =>
    redis.zadd(WORKER_HEARTBEAT.queueKey(QUEUES.video), Date.now() + 60_000, `test-${process.pid}`);
  beforeEach(workerAlive);

  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  async function listens(userId: number, options: { hidden?: boolean } = {}) {
    const [show] = await sql<{ id: number }>(
      em(),
      `insert into podcasts (name, created_at) values (?, now()) returning id`,
      [uniqueName('show')],
    );
    await sql(em(), 'insert into user_podcasts (user_id, podcast_id, hidden, times_listened) values (?, ?, ?, 3)', [
      userId,
      show?.id,
      options.hidden ?? false,
    ]);
  }

  async function readyPerson(): Promise<LoginResponse> {
    const person = await server.login();
    await listens(person.user.id);
    return person;
  }

  const generate = (
    person: LoginResponse,
    body: unknown = { intent: 'romantic', matchPercentage: 95 },
    token = person.token,
  ) => server.call('POST', `/api/users/${person.user.id}/generate-video`, { token, body });

  function upload(
    person: LoginResponse,
    data: Buffer,
    name: string,
    options: { intent?: string; token?: string } = {},
  ) {
    const form = new FormData();
    form.append('video', new Blob([data]), name);
    return server.call('POST', `/api/users/${person.user.id}/video-intro?intent=${options.intent ?? 'romantic'}`, {
      token: options.token ?? person.token,
      form,
    });
  }

  const projectsOf = (userId: number) =>
    sql<{ id: string; status: string; source: string; source_key: string | null }>(
      em(),
      'select id, status, source, source_key from video_intros where user_id = ?',
      [userId],
    );

  describe('service status', () => {
    it('is available only while a worker serving the video queue is alive', async () => {
      const person = await server.login();
      const ok = await server.call('GET', '/api/video-service-status', { token: person.token });
      expect(ok.json).toEqual({ available: true, message: VIDEO_TEXTS.serviceReady });
      expect((await server.call('GET', '/api/video-service-status')).status).toBe(401);
      await redis.del(WORKER_HEARTBEAT.queueKey(QUEUES.video));
      const down = await server.call('GET', '/api/video-service-status', { token: person.token });
      expect(down.json).toEqual({ available: false, message: VIDEO_TEXTS.noWorker });
      // Generation is refused with that message rather than queued for nobody.
      const refused = await generate(await readyPerson());
      expect([refused.status, refused.json.message]).toEqual([503, VIDEO_TEXTS.noWorker]);
      // A heartbeat that expired counts as no worker.
      await redis.zadd(WORKER_HEARTBEAT.queueKey(QUEUES.video), Date.now() - 1, 'expired');
      expect((await server.call('GET', '/api/video-service-status', { token: person.token })).json.available).toBe(
        false,
      );
    });
  });

  describe('POST /api/users/:userId/generate-video', () => {
    it('queues a render for the owner and answers its project, whose status only the owner reads', async () => {
      const person = await readyPerson();
      const res = await generate(person);
      expect(res.status).toBe(202);
      expect(res.json.projectId).toMatch(PROJECT_ID);
      const job = await queue.getJob(res.json.projectId);
      expect(job?.name).toBe('video.render');
      expect(job?.data).toEqual({ projectId: res.json.projectId, userId: person.user.id, intent: 'romantic' });

      const status = await server.call('GET', `/api/video-status/${res.json.projectId}`, { token: person.token });
      expect(status.status).toBe(200);
      expect(status.json).toMatchObject({
        projectId: res.json.projectId,
        intent: 'romantic',
        source: 'generated',
        status: 'queued',
        progress: 0,
        url: null,
        error: null,
      });
      const stranger = await server.login();
      const other = await server.call('GET', `/api/video-status/${res.json.projectId}`, { token: stranger.token });
      expect([other.status, other.json.message]).toEqual([404, VIDEO_TEXTS.notFound]);
      expect((await server.call('GET', `/api/video-status/${res.json.projectId}`)).status).toBe(401);
      expect((await server.call('GET', '/api/video-status/not-a-uuid', { token: person.token })).status).toBe(400);
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect((await server.call('GET', `/api/video-status/${unknown}`, { token: person.token })).status).toBe(404);
    });

    it('refuses someone else, a profile without a visible podcast, and bad bodies', async () => {
      const person = await readyPerson();
      const stranger = await server.login();
      expect((await generate(person, undefined, stranger.token)).status).toBe(403);
      expect((await server.call('POST', `/api/users/${person.user.id}/generate-video`, { body: {} })).status).toBe(401);

      const empty = await server.login();
      const noPodcasts = await generate(empty);
      expect([noPodcasts.status, noPodcasts.json.message]).toEqual([422, VIDEO_TEXTS.profileNotReady]);
      const hidden = await server.login();
      await listens(hidden.user.id, { hidden: true });
      expect((await generate(hidden)).status).toBe(422);

      for (const body of [
        { intent: 'everything', matchPercentage: 95 },
        { intent: 'romantic', matchPercentage: 101 },
        { intent: 'romantic', matchPercentage: '95' },
        { intent: 'romantic', matchPercentage: 95, userId: stranger.user.id },
      ]) {
        const res = await generate(person, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const malformed = await server.call('POST', `/api/users/${person.user.id}/generate-video`, {
        token: person.token,
        rawBody: '{"intent":',
      });
      expect(malformed.status).toBe(400);
      expect(await projectsOf(person.user.id)).toEqual([]);
      expect(await projectsOf(empty.user.id)).toEqual([]);
    });

    it('keeps one active project per person and intent under many simultaneous requests', async () => {
      // 20 people x 3 intents x 3 requests at once: far above the database pool.
      const people = await Promise.all(Array.from({ length: 20 }, () => readyPerson()));
      const intents = ['romantic', 'platonic', 'professional'] as const;
      const calls = people.flatMap((p) =>
        intents.flatMap((intent) => [0, 1, 2].map(() => generate(p, { intent }).then((res) => ({ p, intent, res })))),
      );
      const results = await Promise.all(calls);
      expect(results.filter((r) => r.res.status !== 202).map((r) => `${r.res.status} ${r.res.text}`)).toEqual([]);
      for (const p of people) {
        const projects = await projectsOf(p.user.id);
        expect(projects).toHaveLength(3);
        for (const intent of intents) {
          const ids = new Set(results.filter((r) => r.p === p && r.intent === intent).map((r) => r.res.json.projectId));
          expect(ids.size).toBe(1);
          const [id] = [...ids];
          expect((await queue.getJob(id))?.data.intent).toBe(intent);
        }
      }
    });
  });

  it('limits how many videos one person starts per hour, and not anyone else', async () => {
    // The real allowances, at an address of this test's own (every other test acts from 127.0.0.1).
    const limited = await startTestServer({ MEDIA_DIR: mediaDir, RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1' });
    onTestFinished(() => limited.close());
    const headers = { 'x-forwarded-for': `198.51.100.${randomInt(1, 255)}` };
    const generate = (person: LoginResponse) =>
      limited.call('POST', `/api/users/${person.user.id}/generate-video`, {
        token: person.token,
        headers,
        body: { intent: 'romantic', matchPercentage: 95 },
      });
    const person = await readyPerson();
    const other = await readyPerson();
    const results = await Promise.all(Array.from({ length: 25 }, () => generate(person)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]?.json.message).toBe(VIDEO_TEXTS.rateLimited);
    expect(Number(refused[0]?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await generate(other)).status).toBe(202);
  });

  describe('POST /api/users/:userId/video-intro', () => {
    it('accepts a real short video: stored privately, a transcode queued', async () => {
      const person = await server.login();
      const res = await upload(person, valid, 'me.mp4');
      expect(res.status).toBe(202);
      const job = await queue.getJob(res.json.projectId);
      expect(job?.name).toBe('media.transcode');
      const [project] = await projectsOf(person.user.id);
      expect(project).toMatchObject({ id: res.json.projectId, status: 'queued', source: 'upload' });
      expect(project?.source_key).toMatch(/^incoming\/[A-Za-z0-9_-]{22}\.mp4$/);
      const stored = await fs.readFile(path.join(mediaDir, project?.source_key ?? ''));
      expect(stored.equals(valid)).toBe(true);
      // The original is never served.
      expect((await fetch(`${server.url}/media/${project?.source_key}`)).status).toBe(404);
      // A second upload for the same intent while this one is processed is refused, nothing stored.
      const again = await upload(person, valid, 'again.mp4');
      expect(again.status).toBe(409);
      expect(await projectsOf(person.user.id)).toHaveLength(1);
      await queue.remove(res.json.projectId);
      await fs.rm(path.join(mediaDir, project?.source_key ?? ''), { force: true });
    });

    it('refuses a 31 s video, a 51 MB file, HTML renamed .mp4, a truncated MP4 and a picture, storing nothing', async () => {
      const person = await server.login();
      const before = await filesUnder(path.join(mediaDir, 'incoming'));
      const truncated = valid.subarray(0, Math.floor(valid.length / 2));
      const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
      const png = Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      );
      // 51 MB that starts like an MP4: refused on size while it streams in.
      const huge = Buffer.concat([valid, Buffer.alloc(51 * 1024 * 1024 - valid.length)]);
      const cases: [Buffer, string, number, string][] = [
        [long, 'long.mp4', 400, VIDEO_TEXTS.tooLong],
        [huge, 'huge.mp4', 413, VIDEO_TEXTS.tooLarge],
        [html, 'page.mp4', 415, VIDEO_TEXTS.notAVideo],
        [truncated, 'cut.mp4', 400, VIDEO_TEXTS.unreadable],
        [png, 'me.mp4', 415, VIDEO_TEXTS.notAVideo],
      ];
      for (const [data, name, status, message] of cases) {
        const res = await upload(person, data, name);
        expect([res.status, res.json?.message], name).toEqual([status, message]);
      }
      const missing = new FormData();
      missing.append('other', new Blob([valid]), 'x.mp4');
      const noField = await server.call('POST', `/api/users/${person.user.id}/video-intro?intent=romantic`, {
        token: person.token,
        form: missing,
      });
      expect(noField.status).toBe(400);
      expect(await projectsOf(person.user.id)).toEqual([]);
      expect(await filesUnder(path.join(mediaDir, 'incoming'))).toEqual(before);
      // Nothing left in the upload temp directory by any refusal (removed once each answer went out).
      await until(async () => (await filesUnder(uploadDir)).length === 0, 'no temp file left');
    });

    it('takes many uploads at once: one project each, every original stored once, no temp files left', async () => {
      // 24 people upload at the same moment, 2 of them a second clip for the same intent (409).
      const people = await Promise.all(Array.from({ length: 24 }, () => server.login()));
      const before = await filesUnder(path.join(mediaDir, 'incoming'));
      const results = await Promise.all([
        ...people.map((p) => upload(p, valid, 'me.mp4', { intent: 'platonic' })),
        ...people.slice(0, 2).map((p) => upload(p, valid, 'again.mp4', { intent: 'platonic' })),
      ]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 202)).toHaveLength(24);
      expect(statuses.filter((s) => s === 409)).toHaveLength(2);
      for (const p of people) expect(await projectsOf(p.user.id)).toHaveLength(1);
      const added = (await filesUnder(path.join(mediaDir, 'incoming'))).filter((f) => !before.includes(f));
      expect(added).toHaveLength(24);
      await until(async () => (await filesUnder(uploadDir)).length === 0, 'no temp file left');
      await Promise.all(results.filter((r) => r.status === 202).map((r) => queue.remove(r.json.projectId)));
    });

    it('refuses someone else and a bad intent before reading the file', async () => {
      const person = await server.login();
      const stranger = await server.login();
      expect((await upload(person, valid, 'me.mp4', { token: stranger.token })).status).toBe(403);
      expect((await upload(person, valid, 'me.mp4', { intent: 'all' })).status).toBe(400);
      expect(await projectsOf(person.user.id)).toEqual([]);
    });
  });

  describe('GET /api/users/:userId/video-intros', () => {
    it("answers the owner's videos per intent with the newest project, and nobody else", async () => {
      const person = await readyPerson();
      const { json } = await generate(person, { intent: 'platonic' });
      const res = await server.call('GET', `/api/users/${person.user.id}/video-intros`, { token: person.token });
      expect(res.status).toBe(200);
      expect(res.json.romantic).toEqual({ url: null, posterUrl: null, latest: null });
      expect(res.json.platonic.latest).toMatchObject({ projectId: json.projectId, status: 'queued' });
      const stranger = await server.login();
      const other = await server.call('GET', `/api/users/${person.user.id}/video-intros`, { token: stranger.token });
      expect(other.status).toBe(403);
    });
  });
});
