// /media serving: year-long immutable caching, no listing, no dotfiles, nothing outside the root.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test/harness';

const SECRET = 'CANARY-outside-the-media-root';

/** A raw GET: the path goes out exactly as written (fetch would normalise `..` and backslashes). */
function rawGet(url: string, rawPath: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: rawPath, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/media', () => {
  let server: TestServer;
  let base: string;
  let root: string;
  beforeAll(async () => {
    // The root sits inside `base`, next to files that must never be reachable through it.
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-serve-media-'));
    root = path.join(base, 'media');
    await fs.mkdir(path.join(root, 'pictures'), { recursive: true });
    await fs.mkdir(path.join(root, 'avatars'), { recursive: true });
    await fs.writeFile(path.join(base, 'secret.webp'), SECRET);
    await fs.writeFile(path.join(base, 'secret-512.webp'), SECRET);
    await fs.writeFile(path.join(root, 'pictures', 'Abc_def-512.webp'), 'RIFF....WEBPpicture');
    await fs.writeFile(path.join(root, 'pictures', '.hidden-512.webp'), SECRET);
    await fs.writeFile(path.join(root, '.env'), SECRET);
    await fs.symlink(path.join(base, 'secret.webp'), path.join(root, 'pictures', 'link-512.webp'));
    await fs.mkdir(path.join(root, 'videos'), { recursive: true });
    await fs.mkdir(path.join(root, 'incoming'), { recursive: true });
    await fs.writeFile(path.join(root, 'videos', 'clip.mp4'), '0123456789');
    await fs.writeFile(path.join(root, 'incoming', 'original.mp4'), SECRET);
    server = await startTestServer({ MEDIA_DIR: root });
  });
  afterAll(async () => {
    await server.close();
    await fs.rm(base, { recursive: true, force: true });
  });

  it('serves a stored file with its type and a year-long immutable cache', async () => {
    const res = await fetch(`${server.url}/media/pictures/Abc_def-512.webp`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe('RIFF....WEBPpicture');
    const head = await fetch(`${server.url}/media/pictures/Abc_def-512.webp`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, '19']);
  });

  it('answers 404 for a missing file and lists no directory', async () => {
    for (const p of ['/media/pictures/missing-512.webp', '/media', '/media/', '/media/avatars/', '/media/pictures']) {
      const res = await rawGet(server.url, p);
      expect(res.status, p).toBe(404);
      expect(res.body, p).not.toContain('Abc_def');
    }
  });

  it('never serves dotfiles, symbolic links or files of other types', async () => {
    for (const p of ['/media/.env', '/media/pictures/.hidden-512.webp', '/media/pictures/link-512.webp']) {
      const res = await rawGet(server.url, p);
      expect(res.status, p).toBe(404);
      expect(res.body, p).not.toContain(SECRET);
    }
  });

  it('refuses every path traversal spelling and never answers a file outside the root', async () => {
    const attempts = [
      '/media/../secret.webp',
      '/media/pictures/../../secret.webp',
      '/media/%2e%2e/secret.webp',
      '/media/pictures/%2e%2e/%2e%2e/secret-512.webp',
      '/media/pictures/..%2f..%2fsecret-512.webp',
      '/media/pictures/%2E%2E%2F%2E%2E%2Fsecret-512.webp',
      '/media/pictures/..%5c..%5csecret-512.webp',
      '/media/pictures\\..\\..\\secret-512.webp',
      '/media/..\\secret.webp',
      `/media/${encodeURIComponent(path.join(base, 'secret.webp'))}`,
      `/media/${path.join(base, 'secret.webp')}`,
      `/media//${path.join(base, 'secret.webp')}`,
      '/media/pictures/Abc_def-512.webp%00.png',
      '/media/pictures/Abc_def-512.webp%00',
      '/media/%252e%252e/secret.webp',
      '/media/pictures/%c0%ae%c0%ae/secret.webp',
      '/media/pictures/%',
    ];
    for (const p of attempts) {
      const res = await rawGet(server.url, p);
      expect([400, 404], `${p} -> ${res.status}`).toContain(res.status);
      expect(res.body, p).not.toContain(SECRET);
    }
  });

  it('answers byte ranges of a video (seeking and looping) and 416 outside it', async () => {
    const whole = await fetch(`${server.url}/media/videos/clip.mp4`);
    expect([whole.status, whole.headers.get('content-type'), whole.headers.get('accept-ranges')]).toEqual([
      200,
      'video/mp4',
      'bytes',
    ]);
    const cases: [string, number, string | null, string][] = [
      ['bytes=2-5', 206, 'bytes 2-5/10', '2345'],
      ['bytes=7-', 206, 'bytes 7-9/10', '789'],
      ['bytes=-3', 206, 'bytes 7-9/10', '789'],
      ['bytes=8-100', 206, 'bytes 8-9/10', '89'],
      ['bytes=20-30', 416, 'bytes */10', ''],
      ['bytes=1-2,4-5', 200, null, '0123456789'],
      ['items=1-2', 200, null, '0123456789'],
    ];
    for (const [range, status, contentRange, body] of cases) {
      const res = await fetch(`${server.url}/media/videos/clip.mp4`, { headers: { Range: range } });
      expect([res.status, res.headers.get('content-range'), await res.text()], range).toEqual([
        status,
        contentRange,
        body,
      ]);
    }
  });

  it('never serves an uploaded original waiting in incoming/', async () => {
    const res = await rawGet(server.url, '/media/incoming/original.mp4');
    expect(res.status).toBe(404);
    expect(res.body).not.toContain(SECRET);
  });
});
