// The S3 driver's contract against a local S3-compatible server (s3rver, server/src/test/s3-stand-in.ts):
// what it stores, reads back, deletes, and that a bad key never leaves this process.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3StandIn, startS3StandIn } from '../../test/s3-stand-in';
import { createMediaStore, loadMediaSettings, newMediaBase, S3MediaStore } from '.';

/** Counts the commands a store sends (every one, before signing): proof that nothing went out. */
function recordCommands(store: S3MediaStore): string[] {
  const sent: string[] = [];
  store.client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return sent;
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('S3MediaStore', () => {
  let s3: S3StandIn;
  let store: S3MediaStore;
  let tmp: string;
  beforeAll(async () => {
    s3 = await startS3StandIn();
    store = new S3MediaStore(s3.settings, { partSizeBytes: 5 * 1024 * 1024 });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-s3-store-'));
  });
  afterAll(async () => {
    store?.client.destroy();
    await s3?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('is what MEDIA_DRIVER=s3 builds', () => {
    const settings = loadMediaSettings(s3.env);
    expect(settings).toMatchObject({ driver: 's3', bucket: s3.bucket, endpoint: s3.endpoint, forcePathStyle: true });
    const built = createMediaStore(settings);
    expect(built).toBeInstanceOf(S3MediaStore);
    (built as S3MediaStore).client.destroy();
  });

  it('sends no optional checksums (S3-compatible servers differ on them)', async () => {
    const headers: string[] = [];
    store.client.middlewareStack.add(
      (next) => (args) => {
        const request = args.request as { headers?: Record<string, string> };
        headers.push(...Object.keys(request.headers ?? {}).map((h) => h.toLowerCase()));
        return next(args);
      },
      { step: 'finalizeRequest', name: 'recordHeaders' },
    );
    const file = path.join(tmp, 'checked.mp4');
    await fs.writeFile(file, 'video');
    const key = `${newMediaBase('videos')}.mp4`;
    await store.put(`${newMediaBase('pictures')}-128.webp`, Buffer.from('webp'), 'image/webp');
    await store.putFile(key, file, 'video/mp4');
    await store.getFile(key, path.join(tmp, 'checked-copy.mp4'));
    store.client.middlewareStack.remove('recordHeaders');
    expect(headers).toContain('content-type');
    expect(headers.filter((h) => h.includes('checksum') || h === 'content-encoding')).toEqual([]);
  });

  it('puts bytes with the type fixed by the extension and a year-long cache for public keys', async () => {
    const key = `${newMediaBase('pictures')}-512.webp`;
    // The caller's type is not trusted for a known extension.
    await store.put(key, Buffer.from('RIFF....WEBPpicture'), 'text/html');
    expect(await s3.object(key)).toEqual({
      body: Buffer.from('RIFF....WEBPpicture'),
      contentType: 'image/webp',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    // An uploaded original keeps the caller's type and is not marked cacheable.
    const original = `${newMediaBase('incoming')}.webm`;
    await store.put(original, Buffer.from('original'), 'video/webm');
    expect(await s3.object(original)).toMatchObject({ contentType: 'video/webm', cacheControl: undefined });
  });

  it('moves a small file into the bucket in one PUT and deletes the local copy', async () => {
    const sent = recordCommands(store);
    const file = path.join(tmp, 'poster.jpg');
    const data = randomBytes(64 * 1024);
    await fs.writeFile(file, data);
    const key = `${newMediaBase('videos')}-poster.jpg`;
    await store.putFile(key, file, 'image/jpeg');
    const stored = await s3.object(key);
    expect([stored && sha(stored.body), stored?.contentType]).toEqual([sha(data), 'image/jpeg']);
    await expect(fs.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(sent).toEqual(['PutObjectCommand']);
    store.client.middlewareStack.remove('recordCommands');
  });

  it('streams a large file as a multipart upload, byte for byte', async () => {
    const sent = recordCommands(store);
    const file = path.join(tmp, 'video.mp4');
    // Three parts of at most 5 MiB: lib-storage reads the file stream part by part.
    const data = randomBytes(11 * 1024 * 1024);
    await fs.writeFile(file, data);
    const key = `${newMediaBase('videos')}.mp4`;
    await store.putFile(key, file, 'video/mp4');
    const stored = await s3.object(key);
    expect([stored?.body.length, stored && sha(stored.body), stored?.contentType]).toEqual([
      data.length,
      sha(data),
      'video/mp4',
    ]);
    await expect(fs.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(sent.filter((c) => c === 'UploadPartCommand')).toHaveLength(3);
    expect(sent).toContain('CompleteMultipartUploadCommand');
    store.client.middlewareStack.remove('recordCommands');

    // And back to a local file for ffmpeg, streamed.
    const copy = path.join(tmp, 'copy.mp4');
    await store.getFile(key, copy);
    expect(sha(await fs.readFile(copy))).toBe(sha(data));
  });

  it('keeps the local file when the upload fails', async () => {
    const elsewhere = new S3MediaStore({ ...s3.settings, bucket: 'no-such-bucket' });
    const file = path.join(tmp, 'kept.mp4');
    await fs.writeFile(file, 'video');
    await expect(elsewhere.putFile(`${newMediaBase('videos')}.mp4`, file, 'video/mp4')).rejects.toThrow();
    expect(await fs.readFile(file, 'utf8')).toBe('video');
    elsewhere.client.destroy();
  });

  it('rejects getFile of a missing key like the local driver (ENOENT) and leaves no file', async () => {
    const file = path.join(tmp, 'missing.mp4');
    await expect(store.getFile(`${newMediaBase('videos')}.mp4`, file)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.access(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('deletes, and a missing key is fine; a missing bucket is an error, not a silent success', async () => {
    const key = `${newMediaBase('avatars')}-128.webp`;
    await store.put(key, Buffer.from('avatar'), 'image/webp');
    await store.delete(key);
    expect(await s3.object(key)).toBeNull();
    await store.delete(key);
    const elsewhere = new S3MediaStore({ ...s3.settings, bucket: 'no-such-bucket' });
    await expect(elsewhere.delete(key)).rejects.toMatchObject({ name: 'NoSuchBucket' });
    elsewhere.client.destroy();
  });

  // One page only: s3rver's continuation tokens use DES, which Node 20's OpenSSL 3 refuses, so the
  // paging of buckets over 1 000 objects is not tested here (docs/media.md).
  it('lists every media key of the bucket, skipping objects that are not media (backups)', async () => {
    const bucket = new S3MediaStore({ ...s3.settings, bucket: 'podmatch-list' });
    await s3.client.send(new CreateBucketCommand({ Bucket: 'podmatch-list' }));
    const keys = [
      'avatars/list_1.webp',
      'pictures/list_2.webp',
      'videos/list_3.mp4',
      'videos/list_4.jpg',
      'incoming/list_5.mkv',
    ];
    for (const key of keys) await bucket.put(key, Buffer.from(key), 'application/octet-stream');
    await s3.client.send(new PutObjectCommand({ Bucket: 'podmatch-list', Key: 'notes/readme.txt', Body: 'not media' }));
    const listed: string[] = [];
    for await (const key of bucket.list()) listed.push(key);
    expect(listed.sort()).toEqual([...keys].sort());
  });

  it('answers /media URLs, or the public URL when set, and knows its own keys from both', () => {
    const key = 'pictures/Abc_def-512.webp';
    expect(store.url(key)).toBe(`/media/${key}`);
    expect(store.keyOf(`/media/${key}`)).toBe(key);
    expect(store.keyOf('https://i.scdn.co/image/abc')).toBeNull();
    expect(store.keyOf('/media/pictures/../x-512.webp')).toBeNull();

    const cdn = new S3MediaStore({ ...s3.settings, publicUrl: 'https://cdn.example.com/podmatch/' });
    expect(cdn.url(key)).toBe(`https://cdn.example.com/podmatch/${key}`);
    expect(cdn.keyOf(`https://cdn.example.com/podmatch/${key}`)).toBe(key);
    // Stored before the CDN was configured: still ours (account deletion must find these files).
    expect(cdn.keyOf(`/media/${key}`)).toBe(key);
    for (const url of [
      `https://cdn.example.com/podmatchx/${key}`,
      `https://cdn.example.com/${key}`,
      'https://cdn.example.com/podmatch/pictures/a.b.webp',
      'https://cdn.example.com/podmatch/../secret.webp',
    ]) {
      expect(cdn.keyOf(url), url).toBeNull();
    }
    cdn.client.destroy();
  });

  it('refuses invalid keys before sending any request', async () => {
    const sent = recordCommands(store);
    const file = path.join(tmp, 'never.webp');
    await fs.writeFile(file, 'x');
    for (const key of [
      '../secret.webp',
      'pictures/../../x.webp',
      'pictures/a.b.webp',
      'other/x.webp',
      '/pictures/x.webp',
      'pictures/x.svg',
      'pictures/x.webp\0',
      '',
    ]) {
      await expect(store.put(key, Buffer.from('x'), 'image/webp'), key).rejects.toThrow(/Invalid media key/);
      await expect(store.putFile(key, file, 'image/webp'), key).rejects.toThrow(/Invalid media key/);
      await expect(store.getFile(key, path.join(tmp, 'out')), key).rejects.toThrow(/Invalid media key/);
      await expect(store.delete(key), key).rejects.toThrow(/Invalid media key/);
      await expect(store.sizeOf(key), key).rejects.toThrow(/Invalid media key/);
      await expect(store.read(key, undefined), key).rejects.toThrow(/Invalid media key/);
      expect(() => store.url(key), key).toThrow(/Invalid media key/);
    }
    expect(sent).toEqual([]);
    // The refused file was not moved or deleted.
    expect(await fs.readFile(file, 'utf8')).toBe('x');
    store.client.middlewareStack.remove('recordCommands');
  });
});
