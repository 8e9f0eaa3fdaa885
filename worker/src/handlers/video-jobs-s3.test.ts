// media.transcode with MEDIA_DRIVER=s3 end to end: the server puts the upload into the bucket
// (incoming/), the worker reads it from there, transcodes with real ffmpeg, stores the video and
// poster in the bucket and deletes the original; the server streams the result from the bucket.
// The bucket is a local S3-compatible stand-in (server/src/test/s3-stand-in.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@server/core/logger';
import { loadMediaSettings, type S3MediaStore } from '@server/core/media';
import { probeVideo } from '@server/core/media/ffmpeg';
import { filesUnder } from '@server/test/files';
import { startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { type S3StandIn, startS3StandIn } from '@server/test/s3-stand-in';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

describe('video jobs with the S3 media driver', () => {
  let s3: S3StandIn;
  let server: TestServer;
  let worker: RunningWorker;
  let tmp: string;
  let workDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    s3 = await startS3StandIn();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-video-s3-'));
    workDir = path.join(tmp, 'work');
    // MEDIA_DIR points at a directory that must stay empty: nothing may land on the local disk.
    env = { ...s3.env, MEDIA_DIR: path.join(tmp, 'unused-media'), VIDEO_WORK_DIR: workDir, DEMO_VIDEOS: 'off' };
    server = await startTestServer(env);
    worker = await startWorker(
      loadWorkerConfig(testEnv({ ...env, WORKER_QUEUES: 'video' })),
      createLogger('worker', 'silent'),
    );
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await server?.close();
    await s3?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('builds the same store settings in the server and the worker from the same environment', () => {
    // The server's config reads its media settings with the same function (server/src/config.ts).
    const shared = loadMediaSettings(testEnv(env));
    expect(shared).toMatchObject({ driver: 's3', bucket: s3.bucket, endpoint: s3.endpoint });
    expect(loadWorkerConfig(testEnv(env)).media).toEqual(shared);
    expect(server.running.deps.config.media).toEqual(shared);
  });

  it('transcodes an upload from the bucket into the bucket and serves it from there', async () => {
    // The keys the server's store uploads: the original must go to the bucket, not to a disk.
    const uploads: string[] = [];
    const serverStore = server.running.deps.media as S3MediaStore;
    serverStore.client.middlewareStack.add(
      (next, context) => (args) => {
        const input = args.input as { Key?: string };
        if (context.commandName === 'PutObjectCommand' && input.Key) uploads.push(input.Key);
        return next(args);
      },
      { step: 'initialize', name: 'recordUploads' },
    );
    const person = await server.login();
    const source = path.join(tmp, 'landscape.mp4');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y'],
      ...['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=15', '-f', 'lavfi', '-i', 'sine=frequency=330'],
      ...['-t', '2', '-c:v', 'mpeg4', '-c:a', 'aac', '-shortest', source],
    ]);
    const form = new FormData();
    form.append('video', new Blob([await fs.readFile(source)]), 'holiday.mp4');
    const res = await server.call('POST', `/api/users/${person.user.id}/video-intro?intent=romantic`, {
      token: person.token,
      form,
    });
    expect(res.status, res.text).toBe(202);
    const status = await until(
      async () => {
        const s = (await server.call('GET', `/api/video-status/${res.json.projectId}`, { token: person.token })).json;
        return s.status === 'completed' || s.status === 'failed' ? s : null;
      },
      'transcode',
      60_000,
    );
    expect(status).toMatchObject({ status: 'completed', source: 'upload' });
    expect(status.url).toMatch(/^\/media\/videos\/[A-Za-z0-9_-]{22}\.mp4$/);
    const videoKey = status.url.slice('/media/'.length);
    const posterKey = status.posterUrl.slice('/media/'.length);

    // In the bucket: the result and its poster, with their types; the original is gone. (Other keys
    // may be there: this worker also serves jobs other test files left in the shared queue.)
    expect(await s3.keys('videos/')).toEqual(expect.arrayContaining([posterKey, videoKey]));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatch(/^incoming\/[A-Za-z0-9_-]{22}\.mp4$/);
    expect(await s3.keys('incoming/')).toEqual([]);
    const stored = await s3.object(videoKey);
    expect(stored?.contentType).toBe('video/mp4');
    expect((await s3.object(posterKey))?.contentType).toBe('image/jpeg');

    // Served by the server from the bucket, whole and in ranges, and it is the transcoded video.
    const video = await fetch(`${server.url}${status.url}`);
    expect([video.status, video.headers.get('content-type')]).toEqual([200, 'video/mp4']);
    const file = path.join(tmp, 'downloaded.mp4');
    const body = Buffer.from(await video.arrayBuffer());
    expect(body.equals(stored?.body ?? Buffer.alloc(0))).toBe(true);
    await fs.writeFile(file, body);
    expect(await probeVideo(file)).toMatchObject({ width: 720, height: 1280, videoCodec: 'h264', hasAudio: true });
    const tail = await fetch(`${server.url}${status.url}`, { headers: { Range: 'bytes=100-' } });
    expect([tail.status, tail.headers.get('content-range')]).toEqual([
      206,
      `bytes 100-${body.length - 1}/${body.length}`,
    ]);
    expect(Buffer.from(await tail.arrayBuffer()).equals(body.subarray(100))).toBe(true);
    const poster = await fetch(`${server.url}${status.posterUrl}`);
    expect([poster.status, poster.headers.get('content-type')]).toEqual([200, 'image/jpeg']);

    // Nothing on the local disk: no media directory, no work files left.
    expect(await filesUnder(env.MEDIA_DIR as string)).toEqual([]);
    expect(await filesUnder(workDir)).toEqual([]);
  });
});
