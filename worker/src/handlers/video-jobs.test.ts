// video.render and media.transcode end to end in one process: a real server (routes, sockets), a
// real worker (BullMQ on real Redis), real ffmpeg and espeak-ng, a media directory of its own.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '@server/core/db/sql';
import { JobQueue } from '@server/core/jobs/job-queue';
import { createLogger } from '@server/core/logger';
import { probeVideo } from '@server/core/media/ffmpeg';
import { queueDemoIntros } from '@server/core/videos/demo-intros';
import { filesUnder } from '@server/test/files';
import { startTestServer, type TestServer, testEnv, uniqueName, until } from '@server/test/harness';
import { type JobStatusEvent, type LoginResponse, QUEUES, VIDEO_TEXTS } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

const silent = createLogger('worker', 'silent');

describe('video jobs', () => {
  let server: TestServer;
  let worker: RunningWorker;
  let tmp: string;
  let mediaDir: string;
  let workDir: string;
  let redis: Redis;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-video-jobs-'));
    mediaDir = path.join(tmp, 'media');
    workDir = path.join(tmp, 'work');
    const env = { MEDIA_DIR: mediaDir, VIDEO_WORK_DIR: workDir, DEMO_VIDEOS: 'off' };
    server = await startTestServer(env);
    worker = await startWorker(loadWorkerConfig(testEnv({ ...env, WORKER_QUEUES: 'video' })), silent);
    redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    redis?.disconnect();
    await server?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  const em = () => server.running.deps.orm.em.fork() as EntityManager;

  async function listens(userId: number, names: string[]) {
    for (const [i, name] of names.entries()) {
      const [show] = await sql<{ id: number }>(
        em(),
        'insert into podcasts (name, creator, created_at) values (?, ?, now()) returning id',
        [name, `Creator ${i}`],
      );
      await sql(em(), 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, ?)', [
        userId,
        show?.id,
        10 - i,
      ]);
    }
  }

  async function readyPerson(): Promise<LoginResponse> {
    const person = await server.login(uniqueName('ada'));
    await listens(person.user.id, ['Serial', 'Radiolab', 'Hidden Brain', 'The Daily', '99% Invisible', 'Sixth Show']);
    return person;
  }

  const statusOf = (person: LoginResponse, projectId: string) =>
    server.call('GET', `/api/video-status/${projectId}`, { token: person.token }).then((r) => r.json);

  it('renders a generated intro with progress pushed to the owner, and makes it the intent video', async () => {
    const person = await readyPerson();
    const socket = await server.socket(person.token);
    const events: JobStatusEvent[] = [];
    socket.on('job:status', (e) => events.push(e));
    const res = await server.call('POST', `/api/users/${person.user.id}/generate-video`, {
      token: person.token,
      body: { intent: 'platonic', matchPercentage: 95 },
    });
    expect(res.status).toBe(202);
    const { projectId } = res.json;
    await until(async () => events.find((e) => e.jobId === projectId && e.state === 'completed'), 'completed', 60_000);

    const mine = events.filter((e) => e.jobId === projectId && e.name === 'video.render');
    const progress = mine.filter((e) => e.state === 'active').map((e) => e.progress);
    // 0 when picked up, then SPEC section 9's stages: 10 preparing, 25 submitting, 50..90, 100 done.
    expect(progress.slice(0, 3)).toEqual([0, 10, 25]);
    expect(progress[3]).toBeGreaterThanOrEqual(50);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(Math.max(...progress)).toBeLessThanOrEqual(90);
    expect(mine.at(-1)).toMatchObject({ state: 'completed', progress: 100 });

    const status = await statusOf(person, projectId);
    expect(status).toMatchObject({ status: 'completed', progress: 100, error: null, intent: 'platonic' });
    expect(status.url).toMatch(/^\/media\/videos\/[A-Za-z0-9_-]{22}\.mp4$/);
    expect(status.posterUrl).toMatch(/^\/media\/videos\/[A-Za-z0-9_-]{22}-poster\.jpg$/);
    const video = await fetch(`${server.url}${status.url}`);
    expect([video.status, video.headers.get('content-type')]).toEqual([200, 'video/mp4']);
    const file = path.join(tmp, 'downloaded.mp4');
    await fs.writeFile(file, Buffer.from(await video.arrayBuffer()));
    const probe = await probeVideo(file);
    expect(probe).toMatchObject({ width: 720, height: 1280, videoCodec: 'h264', hasAudio: true });
    expect(probe.durationSeconds).toBeGreaterThan(3);
    expect(probe.durationSeconds).toBeLessThanOrEqual(30);
    const poster = await fetch(`${server.url}${status.posterUrl}`);
    expect(poster.headers.get('content-type')).toBe('image/jpeg');

    const intros = await server.call('GET', `/api/users/${person.user.id}/video-intros`, { token: person.token });
    expect(intros.json.platonic).toMatchObject({ url: status.url, posterUrl: status.posterUrl });
    expect(intros.json.romantic.url).toBeNull();
    const [row] = await sql<{ completions: number }>(em(), 'select completions from video_intros where id = ?', [
      projectId,
    ]);
    expect(row?.completions).toBe(1);
    expect(await filesUnder(workDir)).toEqual([]);
  });

  it('replaces the previous video of the intent and deletes its files', async () => {
    const person = await readyPerson();
    const run = async () => {
      const { json } = await server.call('POST', `/api/users/${person.user.id}/generate-video`, {
        token: person.token,
        body: { intent: 'romantic' },
      });
      return until(
        async () => {
          const s = await statusOf(person, json.projectId);
          return s.status === 'completed' ? s : null;
        },
        'render',
        60_000,
      );
    };
    const first = await run();
    const second = await run();
    expect(second.url).not.toBe(first.url);
    // The old files go once the new video is committed (and so already shown as completed).
    const firstFiles = [first.url, first.posterUrl].map((url) => url.replace('/media/videos/', ''));
    const stored = await until(
      async () => {
        const files = await filesUnder(path.join(mediaDir, 'videos'));
        return firstFiles.some((file) => files.includes(file)) ? null : files;
      },
      "the first video's files deleted",
      30_000,
    );
    expect(stored).toContain(second.url.replace('/media/videos/', ''));
    expect(stored).toContain(second.posterUrl.replace('/media/videos/', ''));
    // Two renders one after the other, beside other test files.
  }, 120_000);

  it('fails with the profile text when the podcasts were hidden after asking', async () => {
    const person = await readyPerson();
    const { json } = await server.call('POST', `/api/users/${person.user.id}/generate-video`, {
      token: person.token,
      body: { intent: 'professional' },
    });
    await sql(em(), 'update user_podcasts set hidden = true where user_id = ?', [person.user.id]);
    const status = await until(
      async () => {
        const s = await statusOf(person, json.projectId);
        return s.status === 'failed' || s.status === 'completed' ? s : null;
      },
      'outcome',
      60_000,
    );
    // The render may have loaded the podcasts before they were hidden; if not, it says why it failed.
    if (status.status === 'failed') expect(status.error).toBe(VIDEO_TEXTS.profileNotReady);
    expect(await filesUnder(workDir)).toEqual([]);
  });

  it('transcodes an upload to a vertical H.264 MP4 with its audio, and deletes the original', async () => {
    const person = await server.login();
    const source = path.join(tmp, 'landscape.mp4');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=330'],
      ...['-t', '3', '-c:v', 'mpeg4', '-c:a', 'aac', '-shortest', source],
    ]);
    const form = new FormData();
    form.append('video', new Blob([await fs.readFile(source)]), 'holiday.mp4');
    const res = await server.call('POST', `/api/users/${person.user.id}/video-intro?intent=romantic`, {
      token: person.token,
      form,
    });
    expect(res.status).toBe(202);
    const status = await until(
      async () => {
        const s = await statusOf(person, res.json.projectId);
        return s.status === 'completed' || s.status === 'failed' ? s : null;
      },
      'transcode',
      60_000,
    );
    expect(status).toMatchObject({ status: 'completed', source: 'upload' });
    const file = path.join(mediaDir, status.url.replace('/media/', ''));
    const probe = await probeVideo(file);
    expect(probe).toMatchObject({ width: 720, height: 1280, videoCodec: 'h264', hasAudio: true });
    expect(probe.durationSeconds).toBeGreaterThan(2.5);
    expect(await filesUnder(path.join(mediaDir, 'incoming'))).toEqual([]);
    expect(await filesUnder(workDir)).toEqual([]);
  });

  it('queues demo intros once per demo person, at background priority', async () => {
    const demo = await readyPerson();
    await sql(em(), `update users set is_demo = true, profile_picture = '/media/avatars/x-512.webp' where id = ?`, [
      demo.user.id,
    ]);
    const jobs = new JobQueue(redis);
    const queue = new Queue(QUEUES.video, { connection: redis });
    try {
      const enqueue: JobQueue['enqueue'] = (k, p, o) => jobs.enqueue(k, p, o);
      // One per intent the person appears in, their current one (romantic) first.
      expect(await queueDemoIntros(em(), enqueue, [demo.user.id])).toBe(3);
      expect(await queueDemoIntros(em(), enqueue, [demo.user.id])).toBe(0);
      const projects = await sql<{ id: string; intent: string }>(
        em(),
        'select id, intent from video_intros where user_id = ? order by intent',
        [demo.user.id],
      );
      expect(projects.map((p) => p.intent)).toEqual(['platonic', 'professional', 'romantic']);
      const priorities = await Promise.all(projects.map(async (p) => (await queue.getJob(p.id))?.opts.priority));
      expect(priorities).toEqual([1001, 1001, 1000]);
      const project = projects[2];
      // Not a demo person: never queued.
      const person = await readyPerson();
      await sql(em(), `update users set profile_picture = '/media/avatars/y-512.webp' where id = ?`, [person.user.id]);
      expect(await queueDemoIntros(em(), enqueue, [person.user.id])).toBe(0);
      // The queued render completes (the missing picture file becomes a placeholder).
      await until(
        async () => {
          const [row] = await sql<{ status: string }>(em(), 'select status from video_intros where id = ?', [
            project?.id,
          ]);
          return row?.status === 'completed';
        },
        'demo intro',
        60_000,
      );
    } finally {
      await queue.close();
      await jobs.close();
    }
  });
});
