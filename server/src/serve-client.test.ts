import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './test/harness';

/** A raw GET (no automatic decompression), so the encoding on the wire is what we check. */
function get(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const req = http.get(url, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
}

describe('the built client', () => {
  let dist: string;
  let server: TestServer;
  const script = `console.log(${JSON.stringify('podmatch '.repeat(200))});`;
  const manifest = JSON.stringify({ name: 'PodMatch', description: 'podcasts '.repeat(100), start_url: '/' });
  const worker = `self.addEventListener('push', () => {}); // ${'sw '.repeat(300)}`;
  const html = `<!doctype html><html><head><title>PodMatch</title></head><body>${'<p>x</p>'.repeat(100)}</body></html>`;

  beforeAll(async () => {
    // Under a dot-folder, as the benchmarks' builds are (.data/...): files there must still be served.
    dist = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-')), '.data', 'dist');
    fs.mkdirSync(dist, { recursive: true });
    fs.mkdirSync(path.join(dist, 'assets'));
    const write = (file: string, content: string) => {
      fs.writeFileSync(file, content);
      fs.writeFileSync(`${file}.br`, brotliCompressSync(content));
      fs.writeFileSync(`${file}.gz`, gzipSync(content));
    };
    write(path.join(dist, 'assets', 'index-abc123.js'), script);
    write(path.join(dist, 'index.html'), html);
    write(path.join(dist, 'manifest.webmanifest'), manifest);
    fs.writeFileSync(path.join(dist, 'sw.js'), worker);
    server = await startTestServer({ CLIENT_DIST_DIR: dist });
  });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(path.dirname(path.dirname(dist)), { recursive: true, force: true });
  });

  it('sends hashed assets precompressed in the best accepted encoding, cached for a year', async () => {
    const url = `${server.url}/assets/index-abc123.js`;
    const br = await get(url, 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toMatch(/max-age=31536000.*immutable/);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    expect(br.body.length).toBeLessThan(script.length / 4);

    const gz = await get(url, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);

    const plain = await get(url);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
  });

  it('answers every client route with index.html, compressed and revalidated', async () => {
    const page = await get(`${server.url}/profile`, 'br');
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(page.body).toString()).toBe(html);
    expect((await get(`${server.url}/`)).body.toString()).toBe(html);
  });

  it('sends the service worker revalidated every time, so a new version is seen at once', async () => {
    const sw = await get(`${server.url}/sw.js`, 'gzip, deflate, br');
    expect(sw.status).toBe(200);
    expect(sw.headers['content-type']).toMatch(/javascript/);
    expect(sw.headers['cache-control']).toBe('no-cache');
    expect(sw.body.toString()).toBe(worker);
  });

  it('sends the web app manifest as application/manifest+json, compressed or not, revalidated', async () => {
    const br = await get(`${server.url}/manifest.webmanifest`, 'br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^application\/manifest\+json/);
    expect(br.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(brotliDecompressSync(br.body).toString())).toMatchObject({ name: 'PodMatch' });
    const plain = await get(`${server.url}/manifest.webmanifest`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/manifest\+json/);
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.body.toString()).toBe(manifest);
  });

  it("the page's security policy lets only the hosted video player into frames", async () => {
    const csp = String((await get(`${server.url}/`)).headers['content-security-policy'] ?? '');
    const frameSrc = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('frame-src '));
    expect(frameSrc).toBe('frame-src https://player.vimeo.com');
  });

  it("the page's security policy loads images only from here: remote artwork comes through the signed proxy", async () => {
    const csp = String((await get(`${server.url}/`)).headers['content-security-policy'] ?? '');
    const imgSrc = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('img-src '));
    expect(imgSrc).toBe("img-src 'self' data: blob:");
  });

  it('still answers a missing asset 404, and the API is not served the page', async () => {
    expect((await get(`${server.url}/assets/missing-123.js`, 'br')).status).toBe(404);
    expect((await get(`${server.url}/api/nope`, 'br')).headers['content-type']).toMatch(/json/);
  });
});
