// /media with MEDIA_DRIVER=s3: the server streams from the bucket (a local S3-compatible stand-in)
// with the local driver's rules, and an uploaded picture goes into the bucket and comes back.
import http from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test/harness';
import { type S3StandIn, startS3StandIn } from './test/s3-stand-in';

const SECRET = 'CANARY-not-for-the-public';

/** A raw request: the path goes out exactly as written (fetch would normalise `..` and backslashes). */
function rawRequest(url: string, rawPath: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path: rawPath, method }, (res) => {
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

describe('/media from an S3 bucket', () => {
  let s3: S3StandIn;
  let server: TestServer;
  beforeAll(async () => {
    s3 = await startS3StandIn();
    await s3.putRaw('pictures/Abc_def-512.webp', 'RIFF....WEBPpicture', 'text/html');
    await s3.putRaw('videos/clip.mp4', '0123456789');
    await s3.putRaw('videos/clip-poster.jpg', 'JPEG');
    await s3.putRaw('incoming/original.mp4', SECRET);
    await s3.putRaw('.env', SECRET);
    await s3.putRaw('pictures/.hidden-512.webp', SECRET);
    await s3.putRaw('pictures/page-512.html', SECRET);
    await s3.putRaw('secret.webp', SECRET);
    await s3.putRaw('videos/long.mp4', Buffer.alloc(4 * 1024 * 1024, 1));
    server = await startTestServer(s3.env);
  });
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  it('streams an object with its fixed type, the year-long cache and the sandbox headers', async () => {
    const res = await fetch(`${server.url}/media/pictures/Abc_def-512.webp`);
    expect(res.status).toBe(200);
    // The type comes from the extension, not from what the bucket has (text/html here).
    expect(res.headers.get('content-type')).toBe('image/webp');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(res.headers.get('content-length')).toBe('19');
    expect(await res.text()).toBe('RIFF....WEBPpicture');
    const poster = await fetch(`${server.url}/media/videos/clip-poster.jpg`);
    expect([poster.status, poster.headers.get('content-type'), await poster.text()]).toEqual([
      200,
      'image/jpeg',
      'JPEG',
    ]);
  });

  it('answers HEAD with the size and no body', async () => {
    const head = await fetch(`${server.url}/media/videos/clip.mp4`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('content-type')]).toEqual([
      200,
      '10',
      'video/mp4',
    ]);
    const ranged = await fetch(`${server.url}/media/videos/clip.mp4`, {
      method: 'HEAD',
      headers: { Range: 'bytes=2-5' },
    });
    expect([ranged.status, ranged.headers.get('content-range'), ranged.headers.get('content-length')]).toEqual([
      206,
      'bytes 2-5/10',
      '4',
    ]);
    const past = await fetch(`${server.url}/media/videos/clip.mp4`, {
      method: 'HEAD',
      headers: { Range: 'bytes=20-' },
    });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, 'bytes */10']);
    expect((await fetch(`${server.url}/media/videos/missing.mp4`, { method: 'HEAD' })).status).toBe(404);
  });

  it('forwards byte ranges to the bucket (206) and answers 416 past the end, like the local driver', async () => {
    const cases: [string, number, string | null, string][] = [
      ['bytes=2-5', 206, 'bytes 2-5/10', '2345'],
      ['bytes=7-', 206, 'bytes 7-9/10', '789'],
      ['bytes=-3', 206, 'bytes 7-9/10', '789'],
      ['bytes=8-100', 206, 'bytes 8-9/10', '89'],
      ['bytes=-100', 206, 'bytes 0-9/10', '0123456789'],
      ['bytes=99999999999999999999-', 416, 'bytes */10', ''],
      ['bytes=20-30', 416, 'bytes */10', ''],
      ['bytes=5-2', 416, 'bytes */10', ''],
      ['bytes=-0', 416, 'bytes */10', ''],
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
      if (status === 206) expect(res.headers.get('content-length'), range).toBe(String(body.length));
      // A refusal is not cached for a year (caches key on the URL, not on the Range header).
      if (status === 416) expect(res.headers.get('cache-control'), range).toBeNull();
    }
  });

  it('never serves uploaded originals, dotfiles, other types, other folders or missing keys', async () => {
    for (const p of [
      '/media/incoming/original.mp4',
      '/media/.env',
      '/media/pictures/.hidden-512.webp',
      '/media/pictures/page-512.html',
      '/media/secret.webp',
      '/media/pictures/missing-512.webp',
      '/media',
      '/media/',
      '/media/pictures/',
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await rawRequest(server.url, p, method);
        expect(res.status, `${method} ${p}`).toBe(404);
        expect(res.body, p).not.toContain(SECRET);
      }
    }
    const post = await rawRequest(server.url, '/media/pictures/Abc_def-512.webp', 'POST');
    expect(post.status).toBe(404);
  });

  it('refuses every path traversal spelling with 400/404 and reaches nothing outside the folders', async () => {
    for (const p of [
      '/media/../secret.webp',
      '/media/pictures/../../secret.webp',
      '/media/%2e%2e/secret.webp',
      '/media/pictures/..%2f..%2fsecret.webp',
      '/media/pictures/..%5c..%5csecret.webp',
      '/media/pictures\\..\\..\\secret.webp',
      '/media/incoming%2foriginal.mp4',
      '/media/pictures/Abc_def-512.webp%00.png',
      '/media/%252e%252e/secret.webp',
      '/media/pictures/%c0%ae%c0%ae/secret.webp',
      '/media/pictures/%',
    ]) {
      const res = await rawRequest(server.url, p);
      expect([400, 404], `${p} -> ${res.status}`).toContain(res.status);
      expect(res.body, p).not.toContain(SECRET);
    }
    expect((await rawRequest(server.url, '/media/pictures/%')).status).toBe(400);
  });

  it('releases the bucket connection when a browser goes away mid-video', async () => {
    // More abandoned streams than the store's 256 sockets: a leaked connection would stall the last GET.
    const { port } = new URL(server.url);
    const abandon = () =>
      new Promise<void>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path: '/media/videos/long.mp4', agent: false }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => resolve());
      });
    for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 60 }, abandon));
    const res = await fetch(`${server.url}/media/videos/long.mp4`, { signal: AbortSignal.timeout(5000) });
    expect((await res.arrayBuffer()).byteLength).toBe(4 * 1024 * 1024);
  });

  it('stores an uploaded profile picture in the bucket and serves it back from there', async () => {
    const person = await server.login();
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3465a4' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('profilePicture', new Blob([photo], { type: 'image/jpeg' }), 'me.jpg');
    const res = await server.call('POST', `/api/users/${person.user.id}/profile-picture`, {
      token: person.token,
      form,
    });
    expect(res.status, res.text).toBe(200);
    const url: string = res.json.profilePicture;
    expect(url).toMatch(/^\/media\/pictures\/[A-Za-z0-9_-]{22}-512\.webp$/);
    const key = url.slice('/media/'.length);
    const stored = await s3.object(key);
    expect(stored?.contentType).toBe('image/webp');
    expect(await s3.keys(key.replace('-512.webp', ''))).toEqual([key.replace('-512', '-128'), key]);

    const served = await fetch(`${server.url}${url}`);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/webp']);
    const body = Buffer.from(await served.arrayBuffer());
    expect(body.equals(stored?.body ?? Buffer.alloc(0))).toBe(true);
    expect(await sharp(body).metadata()).toMatchObject({ format: 'webp', width: 512, height: 512 });

    // A second upload replaces it: the old files leave the bucket.
    const again = new FormData();
    again.append('profilePicture', new Blob([photo], { type: 'image/jpeg' }), 'me.jpg');
    const second = await server.call('POST', `/api/users/${person.user.id}/profile-picture`, {
      token: person.token,
      form: again,
    });
    expect(second.status).toBe(200);
    expect(await s3.keys(key.replace('-512.webp', ''))).toEqual([]);
    expect((await fetch(`${server.url}${url}`)).status).toBe(404);
  });
});

describe('/media with MEDIA_PUBLIC_URL (a CDN before the bucket)', () => {
  let s3: S3StandIn;
  let server: TestServer;
  beforeAll(async () => {
    s3 = await startS3StandIn('podmatch-public');
    server = await startTestServer({ ...s3.env, MEDIA_PUBLIC_URL: 'https://cdn.example.com/podmatch' });
  });
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  it('answers picture URLs on the CDN and still serves /media URLs stored before', async () => {
    const person = await server.login();
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#aa3300' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('profilePicture', new Blob([photo], { type: 'image/png' }), 'me.png');
    const res = await server.call('POST', `/api/users/${person.user.id}/profile-picture`, {
      token: person.token,
      form,
    });
    expect(res.status, res.text).toBe(200);
    const url: string = res.json.profilePicture;
    expect(url).toMatch(/^https:\/\/cdn\.example\.com\/podmatch\/pictures\/[A-Za-z0-9_-]{22}-512\.webp$/);
    const key = url.slice('https://cdn.example.com/podmatch/'.length);
    expect(await s3.object(key)).toMatchObject({
      contentType: 'image/webp',
      // What the CDN passes on from the bucket.
      cacheControl: 'public, max-age=31536000, immutable',
    });
    const served = await fetch(`${server.url}/media/${key}`);
    expect([served.status, served.headers.get('content-type')]).toEqual([200, 'image/webp']);
  });

  it("lets pages load pictures from the CDN's origin (the client builds no proxy URL for them)", async () => {
    const csp = (await fetch(`${server.url}/api/health`)).headers.get('content-security-policy') ?? '';
    const imgSrc = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('img-src '));
    expect(imgSrc).toBe("img-src 'self' data: blob: https://cdn.example.com");
  });
});
