// Served videos say nothing about who made them (docs/videos.md, "Metadata"), end to end over two
// server instances: a phone-like clip (place, title, comment, device, creation time, chapters) is
// uploaded over HTTP to one instance, a real worker transcodes it with ffmpeg, and the files the
// OTHER instance serves under /media are read back with ffprobe. Generated intros likewise.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '@server/core/db/sql';
import { createLogger } from '@server/core/logger';
import { startTestServer, type TestServer, testEnv, uniqueName, until } from '@server/test/harness';
import {
  clipWithMetadata,
  jpegMetadataSegments,
  metadataLeaks,
  PLANTED,
  readMetadata,
} from '@server/test/video-metadata';
import type { LoginResponse } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';

describe('metadata of served videos, over two server instances', () => {
  let uploadServer: TestServer;
  let otherServer: TestServer;
  let worker: RunningWorker;
  let tmp: string;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-video-metadata-'));
    // Both instances share the media store, as every instance of a deployment does.
    const env = { MEDIA_DIR: path.join(tmp, 'media'), VIDEO_WORK_DIR: path.join(tmp, 'work'), DEMO_VIDEOS: 'off' };
    [uploadServer, otherServer] = await Promise.all([startTestServer(env), startTestServer(env)]);
    worker = await startWorker(
      loadWorkerConfig(testEnv({ ...env, WORKER_QUEUES: 'video' })),
      createLogger('worker', 'silent'),
    );
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await uploadServer?.close();
    await otherServer?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  /** The project's final status, read from the other instance. */
  const finished = (person: LoginResponse, projectId: string) =>
    until(
      async () => {
        const { json } = await otherServer.call('GET', `/api/video-status/${projectId}`, { token: person.token });
        return json?.status === 'completed' || json?.status === 'failed' ? json : null;
      },
      'the video job',
      90_000,
    );

  /** Downloads a /media URL from the other instance into the temp dir. */
  async function download(url: string, name: string): Promise<string> {
    const res = await fetch(`${otherServer.url}${url}`);
    expect(res.status, url).toBe(200);
    const file = path.join(tmp, name);
    await fs.writeFile(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  it('strips place, title, comment, device, creation time and chapters from an uploaded video and its poster', async () => {
    const clip = await clipWithMetadata(path.join(tmp, 'IMG_0042.mov'));
    // The upload really carries what a phone records, so a copy of it would be seen below.
    const sent = readMetadata(clip);
    expect(sent.formatTags).toMatchObject({
      location: PLANTED.location,
      'com.apple.quicktime.location.ISO6709': PLANTED.iso6709,
      title: PLANTED.title,
      comment: PLANTED.comment,
      'com.apple.quicktime.model': PLANTED.model,
    });
    expect(sent.chapters.map((c) => c.title)).toEqual([PLANTED.chapter, 'Second']);

    const person = await uploadServer.login();
    const form = new FormData();
    form.append('video', new Blob([await fs.readFile(clip)]), 'IMG_0042.mov');
    const res = await uploadServer.call('POST', `/api/users/${person.user.id}/video-intro?intent=romantic`, {
      token: person.token,
      form,
    });
    expect(res.status, res.text).toBe(202);
    const status = await finished(person, res.json.projectId);
    expect(status).toMatchObject({ status: 'completed', source: 'upload' });

    // Read back as anyone with the public URL reads it: no token.
    const video = await download(status.url, 'served.mp4');
    const served = readMetadata(video);
    console.log(
      'served upload: format tags %j, streams %j, chapters %j',
      served.formatTags,
      served.streams,
      served.chapters,
    );
    expect(await metadataLeaks(video)).toEqual([]);
    expect(served.streams.map((s) => s.type)).toEqual(['video', 'audio']);
    expect(served.chapters).toEqual([]);
    expect(await jpegMetadataSegments(await download(status.posterUrl, 'served-poster.jpg'))).toEqual([]);
  });

  it('writes no metadata into a generated intro and its poster either', async () => {
    const person = await otherServer.login(uniqueName('ada'));
    const em = otherServer.running.deps.orm.em.fork() as EntityManager;
    const [show] = await sql<{ id: number }>(
      em,
      'insert into podcasts (name, created_at) values (?, now()) returning id',
      ['Radiolab'],
    );
    await sql(em, 'insert into user_podcasts (user_id, podcast_id, times_listened) values (?, ?, 3)', [
      person.user.id,
      show?.id,
    ]);
    const res = await uploadServer.call('POST', `/api/users/${person.user.id}/generate-video`, {
      token: person.token,
      body: { intent: 'platonic', matchPercentage: 90 },
    });
    expect(res.status, res.text).toBe(202);
    const status = await finished(person, res.json.projectId);
    expect(status.status).toBe('completed');
    const video = await download(status.url, 'generated.mp4');
    console.log('served generated intro: format tags %j', readMetadata(video).formatTags);
    expect(await metadataLeaks(video)).toEqual([]);
    expect(await jpegMetadataSegments(await download(status.posterUrl, 'generated-poster.jpg'))).toEqual([]);
  });
});
