// Temporary files of uploads (docs/videos.md, "Uploads"), against a real server over HTTP with real
// PostgreSQL, Redis and ffprobe: every way a video or picture upload is refused leaves nothing in the
// upload directory; a file being written is private (0600 in a 0700 directory); the periodic sweep
// removes an old file without a restart; the directory is refused when it is not ours.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type LoginResponse, PICTURE_UPLOAD_TEXTS, QUEUES, VIDEO_TEXTS } from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { filesUnder } from '../test/files';
import { startTestServer, TestClock, type TestServer, uniqueName, until } from '../test/harness';
import { testRedisUrl } from '../test/test-stack';
import { preparePrivateDir } from './upload-temp';

/** A real clip made by ffmpeg: `seconds` long, with a test pattern and a tone. */
function clip(file: string, seconds: number, size = '160x120'): Buffer {
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=10`, '-f', 'lavfi', '-i', 'sine=frequency=440'],
    ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', file],
  ]);
  return readFileSync(file);
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const HTML = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');

describe('temporary files of uploads', () => {
  let tmp: string;
  let uploadDir: string;
  let mediaDir: string;
  let server: TestServer;
  let valid: Buffer;
  let long: Buffer;
  let redis: Redis;
  let queue: Queue;

  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-upload-temp-'));
    uploadDir = path.join(tmp, 'uploads');
    mediaDir = path.join(tmp, 'media');
    // The sweep runs every 50 ms on a clock that stands still: it never removes a fresh file, so
    // nothing below passes because of it.
    server = await startTestServer(
      { MEDIA_DIR: mediaDir, UPLOAD_TEMP_DIR: uploadDir },
      { clock: new TestClock().now, uploadSweepEveryMs: 50 },
    );
    valid = clip(path.join(tmp, 'valid.mp4'), 2);
    long = clip(path.join(tmp, 'long.mp4'), 31, '32x32');
    redis = new Redis(testRedisUrl());
    queue = new Queue(QUEUES.video, { connection: redis });
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    redis?.disconnect();
    await server?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  // Each test sees only what it left: a file an earlier failure left is not counted twice.
  beforeEach(async () => {
    for (const name of await filesUnder(uploadDir)) await fs.rm(path.join(uploadDir, name), { force: true });
  });

  /** The upload directory empties (files are removed once each answer has gone out). */
  const emptied = (what: string) =>
    until(async () => (await filesUnder(uploadDir)).length === 0, `no temporary file left after ${what}`, 5000);

  type Part = { field: string; data: Buffer; name?: string } | { field: string; value: string };
  function form(parts: Part[]): FormData {
    const body = new FormData();
    for (const part of parts) {
      if ('value' in part) body.append(part.field, part.value);
      else body.append(part.field, new Blob([part.data]), part.name ?? 'me.mp4');
    }
    return body;
  }
  const video = (data: Buffer, name = 'me.mp4'): Part => ({ field: 'video', data, name });
  const picture = (data: Buffer): Part => ({ field: 'profilePicture', data, name: 'me.png' });

  describe('every refusal of a video upload leaves nothing behind', () => {
    let person: LoginResponse;
    let stranger: LoginResponse;
    beforeAll(async () => {
      person = await server.login();
      stranger = await server.login();
    });

    const upload = (parts: Part[], options: { token?: string | null; path?: string; intent?: string } = {}) =>
      server.call(
        'POST',
        `${options.path ?? `/api/users/${person.user.id}/video-intro`}?intent=${options.intent ?? 'romantic'}`,
        { token: options.token === null ? undefined : (options.token ?? person.token), form: form(parts) },
      );

    const cases: [string, () => ReturnType<typeof upload>, number, string?][] = [
      // The body check runs after the file was written (mount: upload parser, then body validation).
      ['an extra form field after the file', () => upload([video(valid), { field: 'note', value: 'hi' }]), 400],
      ['an extra form field before the file', () => upload([{ field: 'note', value: 'hi' }, video(valid)]), 400],
      ['HTML renamed .mp4', () => upload([video(HTML, 'page.mp4')]), 415, VIDEO_TEXTS.notAVideo],
      ['a picture', () => upload([video(PNG)]), 415, VIDEO_TEXTS.notAVideo],
      ['a truncated MP4', () => upload([video(valid.subarray(0, valid.length / 2))]), 400, VIDEO_TEXTS.unreadable],
      ['a 31 s video', () => upload([video(long)]), 400, VIDEO_TEXTS.tooLong],
      [
        'a 51 MB file',
        () => upload([video(Buffer.concat([valid, Buffer.alloc(51 * 1024 * 1024 - valid.length)]))]),
        413,
        VIDEO_TEXTS.tooLarge,
      ],
      ['two files', () => upload([video(valid), video(valid)]), 400],
      ['the file in another field', () => upload([{ field: 'other', data: valid }]), 400],
      ['no file', () => upload([{ field: 'intent', value: 'romantic' }]), 400],
      ['a bad user id in the path', () => upload([video(valid)], { path: '/api/users/abc/video-intro' }), 400],
      ['a bad intent', () => upload([video(valid)], { intent: 'everything' }), 400],
      ['no sign-in', () => upload([video(valid)], { token: null }), 401],
      ['someone else', () => upload([video(valid)], { token: stranger.token }), 403],
    ];
    for (const [name, send, status, message] of cases) {
      it(`refuses ${name} (${status})`, async () => {
        const res = await send();
        expect(res.status, res.text).toBe(status);
        expect(typeof res.json?.message).toBe('string');
        if (message) expect(res.json.message).toBe(message);
        await emptied(name);
      });
    }

    it('removes the file of an accepted upload and of a second one refused with 409', async () => {
      const person = await server.login();
      const url = `/api/users/${person.user.id}/video-intro?intent=platonic`;
      const first = await server.call('POST', url, { token: person.token, form: form([video(valid)]) });
      expect(first.status, first.text).toBe(202);
      onTestFinished(() => queue.remove(first.json.projectId).then(() => undefined));
      const again = await server.call('POST', url, { token: person.token, form: form([video(valid)]) });
      expect(again.status).toBe(409);
      await emptied('an accepted upload and a 409');
    });

    it('leaves nothing after 40 simultaneous uploads refused by the body check', async () => {
      // Four times the database pool, each with a whole file written before the refusal.
      const people = await Promise.all(Array.from({ length: 40 }, () => server.login()));
      const results = await Promise.all(
        people.map((p) =>
          server.call('POST', `/api/users/${p.user.id}/video-intro?intent=romantic`, {
            token: p.token,
            form: form([video(valid), { field: 'note', value: 'hi' }]),
          }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(people.map(() => 400));
      await emptied('40 refused uploads at once');
    });

    it('refuses over the rate limit (429) and leaves nothing', async () => {
      // The real allowances, at an address of this test's own.
      const limited = await startTestServer({
        MEDIA_DIR: mediaDir,
        UPLOAD_TEMP_DIR: uploadDir,
        RATE_LIMIT_SCALE: '1',
        TRUST_PROXY: '1',
      });
      onTestFinished(() => limited.close());
      const headers = { 'x-forwarded-for': `198.51.100.${randomInt(1, 255)}` };
      // Signed in from that address too: with the real allowances, loopback's sign-ins are spent by
      // every other test of the run.
      const login = await limited.call('POST', '/api/auth/dev-login', { headers, body: { username: uniqueName() } });
      expect(login.status, login.text).toBe(200);
      const someone = login.json as LoginResponse;
      const send = (data: Buffer) =>
        limited.call('POST', `/api/users/${someone.user.id}/video-intro?intent=romantic`, {
          token: someone.token,
          headers,
          form: form([video(data)]),
        });
      // Refused uploads count too (20 an hour per person).
      for (let i = 0; i < 20; i++) expect((await send(HTML)).status).toBe(415);
      const res = await send(valid);
      expect([res.status, res.json.message]).toEqual([429, VIDEO_TEXTS.rateLimited]);
      await emptied('a rate-limited upload');
    });

    it('writes the file privately, and removes it when the client goes away mid-upload', async () => {
      const sending = startRawUpload(server.url, `/api/users/${person.user.id}/video-intro?intent=romantic`, {
        token: person.token,
        field: 'video',
        total: 20 * 1024 * 1024,
      });
      try {
        const [name] = await until(async () => {
          const files = await filesUnder(uploadDir);
          return files.length > 0 ? files : null;
        }, 'the upload to reach the disk');
        const file = path.join(uploadDir, name ?? '');
        expect(((await fs.stat(file)).mode & 0o777).toString(8)).toBe('600');
        expect(((await fs.stat(uploadDir)).mode & 0o777).toString(8)).toBe('700');
      } finally {
        sending.abort();
      }
      await emptied('a client that went away');
    });
  });

  describe('every refusal of a picture upload leaves nothing behind (pictures stay in memory)', () => {
    it('refuses an extra field, a non-image, a 6 MB file, bad ids, no sign-in, someone else and an abort', async () => {
      const person = await server.login();
      const stranger = await server.login();
      const url = `/api/users/${person.user.id}/profile-picture`;
      const send = (parts: Part[], options: { token?: string; path?: string } = {}) =>
        server.call('POST', options.path ?? url, { token: options.token ?? person.token, form: form(parts) });
      const cases: [string, () => ReturnType<typeof send>, number, string?][] = [
        ['an extra field', () => send([picture(PNG), { field: 'note', value: 'hi' }]), 400],
        ['HTML', () => send([picture(HTML)]), 415, PICTURE_UPLOAD_TEXTS.notAnImage],
        ['6 MB', () => send([picture(Buffer.alloc(6 * 1024 * 1024))]), 413, PICTURE_UPLOAD_TEXTS.tooLarge],
        ['a bad id', () => send([picture(PNG)], { path: '/api/users/abc/profile-picture' }), 400],
        ['someone else', () => send([picture(PNG)], { token: stranger.token }), 403],
        ['no sign-in', () => server.call('POST', url, { form: form([picture(PNG)]) }), 401],
      ];
      for (const [name, call, status, message] of cases) {
        const res = await call();
        expect(res.status, name).toBe(status);
        if (message) expect(res.json.message, name).toBe(message);
        expect(await filesUnder(uploadDir), name).toEqual([]);
      }
      const sending = startRawUpload(server.url, url, { token: person.token, field: 'profilePicture', total: 4e6 });
      await sending.sent(1024 * 1024);
      sending.abort();
      expect(await filesUnder(uploadDir)).toEqual([]);
    });
  });

  it('sweeps a file older than an hour every few moments, without a restart', async () => {
    const dir = path.join(tmp, 'swept');
    const clock = new TestClock();
    const swept = await startTestServer(
      { MEDIA_DIR: mediaDir, UPLOAD_TEMP_DIR: dir },
      { clock: clock.now, uploadSweepEveryMs: 50 },
    );
    onTestFinished(() => swept.close());
    // After the start's sweep: one file left by a server killed two hours ago, one written now.
    const old = path.join(dir, 'left-by-a-killed-server');
    const fresh = path.join(dir, 'being-written');
    await fs.writeFile(old, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(old, twoHoursAgo, twoHoursAgo);
    await fs.writeFile(fresh, 'x');
    await until(async () => !(await exists(old)), 'the sweep to remove the old file');
    expect(await exists(fresh)).toBe(true);
    // An hour and a minute later the fresh one is stale too, and the next sweep removes it.
    clock.advance(61 * 60_000);
    await until(async () => !(await exists(fresh)), 'the sweep to remove the file now an hour old');
  });

  it('makes the upload directory private, and refuses one that is a link or someone else’s', async () => {
    const wide = path.join(tmp, 'wide');
    await fs.mkdir(wide, { mode: 0o755 });
    await fs.chmod(wide, 0o755);
    await preparePrivateDir(wide);
    expect(((await fs.stat(wide)).mode & 0o777).toString(8)).toBe('700');
    const link = path.join(tmp, 'link');
    await fs.symlink(wide, link);
    await expect(preparePrivateDir(link)).rejects.toThrow(/not a directory/);
    await expect(startTestServer({ UPLOAD_TEMP_DIR: link })).rejects.toThrow(/not a directory/);
    if (process.getuid?.() === 0) {
      // Only root can hand a directory to someone else.
      const theirs = path.join(tmp, 'theirs');
      await fs.mkdir(theirs, { mode: 0o777 });
      await fs.chown(theirs, 65534, 65534);
      await expect(preparePrivateDir(theirs)).rejects.toThrow(/belongs to another user/);
    }
  });
});

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

/**
 * A multipart upload of `total` bytes (an MP4 header, then zeros) sent in 64 KB chunks as the server
 * takes them, until `abort()` closes the connection mid-body; `sent(n)` resolves once n bytes went.
 */
function startRawUpload(base: string, urlPath: string, options: { token: string; field: string; total: number }) {
  const boundary = `----podmatch${randomInt(1e9)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${options.field}"; filename="big.mp4"\r\n` +
      'Content-Type: video/mp4\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(urlPath, base);
  const req = http.request(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + options.total + tail.length),
    },
  });
  req.on('error', () => undefined);
  req.on('response', (res) => res.resume());
  let written = 0;
  const waiters: { bytes: number; resolve: () => void }[] = [];
  const chunk = Buffer.alloc(64 * 1024);
  // An ISO BMFF header first, so the bytes look like a video.
  Buffer.from('000000186674797069736d00000000', 'hex').copy(chunk);
  req.write(head);
  const pump = () => {
    while (!req.destroyed && written < options.total - chunk.length) {
      written += chunk.length;
      for (const w of waiters.filter((w) => written >= w.bytes)) w.resolve();
      if (!req.write(chunk)) return void req.once('drain', pump);
    }
  };
  pump();
  return {
    sent: (bytes: number) =>
      new Promise<void>((resolve) => (written >= bytes ? resolve() : waiters.push({ bytes, resolve }))),
    abort: () => req.destroy(),
  };
}
