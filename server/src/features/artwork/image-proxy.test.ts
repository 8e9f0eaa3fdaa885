import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { ImageProxy } from '../../core/artwork/image-proxy';
import { sniffImageType } from '../../core/artwork/image-type';
import { createLogger } from '../../core/logger';
import { startTestServer, type TestServer, testArtworkUrls, testEnv } from '../../test/harness';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A PNG-signed body of `size` bytes (the proxy checks the signature, browsers are not involved). */
const png = (size = 2048) => Buffer.concat([PNG_SIGNATURE, randomBytes(size - PNG_SIGNATURE.length)]);

/** A local HTTP server on `host` that counts requests per path. */
async function listen(host: string, handler: http.RequestListener, port = 0) {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(at, (hits.get(at) ?? 0) + 1);
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    port: address.port,
    base: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The proxy as the client asks it: a `url` with the server's signature, as API answers carry it. */
async function getBytes(server: TestServer, query: { url?: string; name: string }) {
  const at = query.url
    ? testArtworkUrls().proxyUrl(query.url, query.name)
    : `/api/proxy/image?${new URLSearchParams({ name: query.name }).toString()}`;
  const res = await fetch(`${server.url}${at}`);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const isPlaceholder = (body: Buffer) => body.toString('utf8').startsWith('<svg xmlns="http://www.w3.org/2000/svg"');
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'podmatch-image-cache-'));
const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => /^[0-9a-f]{64}$/.test(name));

describe('image proxy: fetching remote artwork', () => {
  const images = new Map<string, Buffer>();
  const stats = { bigStreamBytes: 0, bigStreamCut: false, slowCut: {} as Record<string, boolean> };
  let upstream: Awaited<ReturnType<typeof listen>>;
  let server: TestServer;
  let cacheDir: string;
  let settings: Record<string, string>;
  const TIMEOUT_MS = 1000;

  beforeAll(async () => {
    upstream = await listen('127.0.0.1', (req, res) => {
      const at = new URL(req.url ?? '/', 'http://x').pathname;
      if (at.startsWith('/img/')) {
        const body = images.get(at) ?? png();
        images.set(at, body);
        // A little latency, so concurrent requests really overlap.
        setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(body), 150);
      } else if (at === '/page.html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><script>alert(1)</script></html>');
      } else if (at === '/png-as-html') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(png());
      } else if (at === '/html-as.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('<html><script>alert(1)</script></html>');
      } else if (at === '/drawing.svg') {
        res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
      } else if (at === '/svg-as.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
      } else if (at === '/big-declared.png') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(6 * 1024 * 1024) });
        res.write(PNG_SIGNATURE);
      } else if (at === '/big-stream.png') {
        // No Content-Length: 50 MB in chunks, as fast as the reader takes them.
        res.writeHead(200, { 'content-type': 'image/png' });
        const chunk = Buffer.concat([PNG_SIGNATURE, Buffer.alloc(64 * 1024 - 8)]);
        res.on('close', () => {
          stats.bigStreamCut = !res.writableFinished;
        });
        const pump = () => {
          while (stats.bigStreamBytes < 50 * 1024 * 1024) {
            stats.bigStreamBytes += chunk.length;
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        pump();
      } else if (at === '/stall.png' || at === '/drip.png') {
        res.on('close', () => {
          stats.slowCut[at] = !res.writableFinished;
        });
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(PNG_SIGNATURE); // ... and then nothing more, or a byte every 100 ms
        if (at === '/drip.png') {
          const drip = setInterval(() => res.write(Buffer.alloc(1)), 100);
          res.on('close', () => clearInterval(drip));
        }
        // The whole image, a second after the proxy's timeout: a proxy still reading would serve it.
        const finish = setTimeout(() => res.end(), TIMEOUT_MS + 1000);
        res.on('close', () => clearTimeout(finish));
      } else if (at === '/gone.png') {
        res.writeHead(404, { 'content-type': 'text/html' }).end('not here');
      } else {
        res.writeHead(500).end();
      }
    });
    cacheDir = tempDir();
    settings = {
      IMAGE_CACHE_DIR: cacheDir,
      IMAGE_PROXY_TIMEOUT_MS: String(TIMEOUT_MS),
      IMAGE_PROXY_ALLOWED_IPS: '127.0.0.1',
      IMAGE_PROXY_ALLOWED_PORTS: String(upstream.port),
    };
    server = await startTestServer(settings);
  });
  afterAll(async () => {
    await server.close();
    upstream.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('answers the same bytes with the real type and safe, long-lived headers, then serves them from disk', async () => {
    const url = `${upstream.base}/img/cover.png`;
    const first = await getBytes(server, { url, name: 'Serial' });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.body.equals(images.get('/img/cover.png')!)).toBe(true);
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(first.headers.get('cache-control')).toContain('max-age=604800');
    expect(cacheFiles(cacheDir)).toHaveLength(1);

    const second = await getBytes(server, { url, name: 'Serial' });
    expect(second.body.equals(first.body)).toBe(true);
    expect(upstream.hits.get('/img/cover.png')).toBe(1);

    // A fresh proxy over the same directory (a restarted server) finds it on disk too.
    const config = loadConfig(testEnv(settings)).imageProxy;
    const restarted = await new ImageProxy(config, createLogger('test', 'silent')).get(url);
    expect(restarted.ok && restarted.body.equals(first.body)).toBe(true);
    expect(upstream.hits.get('/img/cover.png')).toBe(1);
  });

  it('makes one upstream request for 20 concurrent requests of a new URL', async () => {
    const url = `${upstream.base}/img/popular.png`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => getBytes(server, { url, name: 'Popular' })));
    for (const answer of answers) {
      expect(answer.headers.get('content-type')).toBe('image/png');
      expect(answer.body.equals(images.get('/img/popular.png')!)).toBe(true);
    }
    expect(upstream.hits.get('/img/popular.png')).toBe(1);
  });

  it.each([
    ['an HTML page', '/page.html'],
    ['PNG bytes declared as text/html', '/png-as-html'],
    ['HTML declared as image/png', '/html-as.png'],
    ['an SVG', '/drawing.svg'],
    ['an SVG declared as image/png', '/svg-as.png'],
    ['a 404', '/gone.png'],
  ])('answers the placeholder for %s, briefly cached, and remembers the failure', async (_label, at) => {
    const url = `${upstream.base}${at}`;
    for (let i = 0; i < 3; i++) {
      const res = await getBytes(server, { url, name: 'Radiolab' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.body.toString('utf8')).toContain('>R</text>');
      expect(res.body.toString('utf8')).not.toContain('alert');
    }
    // The dead or hostile URL was asked once, not three times (negative cache).
    expect(upstream.hits.get(at)).toBe(1);
  });

  it('answers the placeholder for a body over 5 MB, cutting the upstream off early', async () => {
    const declared = await getBytes(server, { url: `${upstream.base}/big-declared.png`, name: 'Big' });
    expect(isPlaceholder(declared.body)).toBe(true);

    const streamed = await getBytes(server, { url: `${upstream.base}/big-stream.png`, name: 'Big' });
    expect(isPlaceholder(streamed.body)).toBe(true);
    await expect.poll(() => stats.bigStreamCut).toBe(true);
    // It stopped reading a little after 5 MB (socket buffers hold some more), far from 50 MB.
    expect(stats.bigStreamBytes).toBeLessThan(20 * 1024 * 1024);
  });

  it.each([
    ['stalls after the headers', '/stall.png'],
    ['drips a byte at a time', '/drip.png'],
  ])('answers the placeholder for an upstream that %s, within the timeout', async (_label, at) => {
    const started = Date.now();
    const res = await getBytes(server, { url: `${upstream.base}${at}`, name: 'Slow' });
    // Not the image the upstream ends with a second after the timeout: the proxy gave up before.
    expect(isPlaceholder(res.body)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    await expect.poll(() => stats.slowCut[at]).toBe(true);
  });

  it('answers the long-cached placeholder when there is no url', async () => {
    const res = await getBytes(server, { name: 'Hardcore History' });
    expect(res.headers.get('cache-control')).toContain('max-age=86400');
    expect(res.body.toString('utf8')).toContain('>H</text>');
    expect(upstream.total()).toBeGreaterThan(0); // (the upstream did serve the other tests)
  });
});

describe('image proxy: the disk cache', () => {
  let upstream: Awaited<ReturnType<typeof listen>>;
  let server: TestServer;
  let cacheDir: string;
  const SIZE = 30_000;

  beforeAll(async () => {
    upstream = await listen('127.0.0.1', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(SIZE)),
    );
    cacheDir = tempDir();
    server = await startTestServer({
      IMAGE_CACHE_DIR: cacheDir,
      IMAGE_CACHE_MAX_BYTES: String(3 * SIZE + 100),
      IMAGE_PROXY_ALLOWED_IPS: '127.0.0.1',
      IMAGE_PROXY_ALLOWED_PORTS: String(upstream.port),
    });
  });
  afterAll(async () => {
    await server.close();
    upstream.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const fetchImage = async (name: string) => {
    const res = await getBytes(server, { url: `${upstream.base}/${name}.png`, name });
    expect(res.headers.get('content-type')).toBe('image/png');
  };
  const diskBytes = () => cacheFiles(cacheDir).reduce((sum, f) => sum + statSync(path.join(cacheDir, f)).size, 0);

  it('stays under its cap, evicting the least recently used image', async () => {
    for (const name of ['a', 'b', 'c']) await fetchImage(name);
    expect(cacheFiles(cacheDir)).toHaveLength(3);
    await fetchImage('a'); // a hit: a is now the most recently used, b the least
    expect(upstream.hits.get('/a.png')).toBe(1);

    await fetchImage('d'); // over the cap: b goes
    expect(cacheFiles(cacheDir)).toHaveLength(3);
    expect(diskBytes()).toBeLessThanOrEqual(3 * SIZE + 100);
    await fetchImage('a');
    expect(upstream.hits.get('/a.png')).toBe(1);
    await fetchImage('b');
    expect(upstream.hits.get('/b.png')).toBe(2);

    for (const name of ['e', 'f', 'g', 'h']) await fetchImage(name);
    expect(cacheFiles(cacheDir)).toHaveLength(3);
    expect(diskBytes()).toBeLessThanOrEqual(3 * SIZE + 100);
  });
});

describe('image proxy: hostile URLs', () => {
  let canary: Awaited<ReturnType<typeof listen>>;
  let canaryV6: Awaited<ReturnType<typeof listen>> | null = null;
  let hop: Awaited<ReturnType<typeof listen>>;
  let server: TestServer;
  let cacheDir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    // The canary answers a real PNG on loopback: any request reaching it is a failure.
    const canaryHandler: http.RequestListener = (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(png());
    canary = await listen('127.0.0.1', canaryHandler);
    canaryV6 = await listen('::1', canaryHandler, canary.port).catch(() => null);
    // A stand-in for a public host (on 127.0.0.2, which the allow-list admits) that redirects to loopback.
    hop = await listen('127.0.0.2', (req, res) => {
      const at = new URL(req.url ?? '/', 'http://x').pathname;
      const targets: Record<string, string> = {
        '/to-canary': `http://127.0.0.1:${canary.port}/cover.png`,
        '/to-localhost': `http://localhost:${canary.port}/cover.png`,
        '/to-v6': `http://[::1]:${canary.port}/cover.png`,
        '/to-mapped': `http://[::ffff:127.0.0.1]:${canary.port}/cover.png`,
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/to-file': 'file:///etc/passwd',
        '/to-port': 'http://example.com:8080/cover.png',
        '/to-credentials': 'http://user:secret@example.com/cover.png',
      };
      res.writeHead(302, { location: targets[at] ?? '/' }).end();
    });
    cacheDir = tempDir();
    // The allow-list holds the hop's address only; the canary's port is allowed, so it is the
    // address rule (not the port rule) that must keep every request away from it.
    const settings = {
      IMAGE_CACHE_DIR: cacheDir,
      IMAGE_PROXY_ALLOWED_IPS: '127.0.0.2',
      IMAGE_PROXY_ALLOWED_PORTS: `${canary.port},${hop.port}`,
    };
    env = testEnv(settings);
    server = await startTestServer(settings);
  });
  afterAll(async () => {
    await server.close();
    canary.close();
    canaryV6?.close();
    hop.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const port = () => canary.port;
  const corpus = () => [
    `http://127.0.0.1:${port()}/cover.png`,
    `http://localhost:${port()}/cover.png`,
    `http://127.1:${port()}/cover.png`,
    `http://0x7f000001:${port()}/cover.png`,
    `http://2130706433:${port()}/cover.png`,
    `http://0177.0.0.1:${port()}/cover.png`,
    `http://[::1]:${port()}/cover.png`,
    `http://[::ffff:127.0.0.1]:${port()}/cover.png`,
    `http://0.0.0.0:${port()}/cover.png`,
    `HTTP://LOCALHOST:${port()}/cover.png`,
    'http://127.0.0.1/',
    'http://localhost/',
    'http://127.1/',
    'http://0x7f000001/',
    'http://2130706433/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://172.16.0.1/',
    'http://100.64.0.1/',
    'http://[fd00::1]/',
    `${hop.base}/to-canary`,
    `${hop.base}/to-localhost`,
    `${hop.base}/to-v6`,
    `${hop.base}/to-mapped`,
    `${hop.base}/to-metadata`,
  ];
  const refusedBeforeConnecting = [
    'file:///etc/passwd',
    'ftp://example.com/cover.png',
    'gopher://example.com:70/_GET',
    'data:image/png;base64,iVBORw0KGgo=',
    'javascript:alert(1)',
    'http://example.com:8080/cover.png',
    'https://example.com:22/cover.png',
    'http://user:secret@example.com/cover.png',
    'http://:secret@example.com/cover.png',
    'not a url',
  ];

  /** Redirects whose next hop breaks a URL rule: refused before that hop connects. */
  const refusedRedirects = (): [string, RegExp][] => [
    [`${hop.base}/to-file`, /Only http and https/],
    [`${hop.base}/to-port`, /Port 8080 is not allowed/],
    [`${hop.base}/to-credentials`, /credentials/],
  ];

  it('answers every one with the placeholder, and the loopback canary receives no request', async () => {
    for (const url of [...corpus(), ...refusedBeforeConnecting, ...refusedRedirects().map(([u]) => u)]) {
      const res = await getBytes(server, { url, name: 'Canary' });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toBe('image/svg+xml; charset=utf-8');
      expect(res.body.toString('utf8'), url).toContain('>C</text>');
    }
    expect(canary.total()).toBe(0);
    expect(canaryV6?.total() ?? 0).toBe(0);
    // The redirects were really followed up to the refused hop.
    expect(hop.total()).toBe(5 + refusedRedirects().length);
    expect(cacheFiles(cacheDir)).toHaveLength(0);
  });

  it('refuses each for the right reason: the address, the scheme, the port or the credentials', async () => {
    const proxy = new ImageProxy(loadConfig(env).imageProxy, createLogger('test', 'silent'));
    for (const url of corpus()) {
      const result = await proxy.get(url);
      expect(result.ok ? 'fetched' : result.reason, url).toMatch(/is not allowed/);
    }
    const expected = [
      /Only http and https/,
      /Only http and https/,
      /Only http and https/,
      /Only http and https/,
      /Only http and https/,
      /Port 8080 is not allowed/,
      /Port 22 is not allowed/,
      /credentials/,
      /credentials/,
      /Not a valid URL/,
    ];
    for (const [i, url] of refusedBeforeConnecting.entries()) {
      const result = await proxy.get(url);
      expect(result.ok ? 'fetched' : result.reason, url).toMatch(expected[i]!);
    }
    for (const [url, reason] of refusedRedirects()) {
      const result = await proxy.get(url);
      expect(result.ok ? 'fetched' : result.reason, url).toMatch(reason);
    }
    expect(canary.total()).toBe(0);
  });

  it('has a canary that would notice a request (the test can fail)', async () => {
    const res = await fetch(`${canary.base}/cover.png`);
    expect(sniffImageType(Buffer.from(await res.arrayBuffer()))).toBe('image/png');
    expect(canary.total()).toBe(1);
  });
});

describe('image proxy settings', () => {
  it('refuses the test-only allow-lists in production', () => {
    const production = (extra: Record<string, string>) => () =>
      loadConfig(testEnv({ NODE_ENV: 'production', ...extra }));
    expect(production({ IMAGE_PROXY_ALLOWED_IPS: '127.0.0.1' })).toThrow(/development and tests only/);
    expect(production({ IMAGE_PROXY_ALLOWED_PORTS: '8080' })).toThrow(/development and tests only/);
    expect(() => loadConfig(testEnv({ IMAGE_PROXY_ALLOWED_PORTS: '80,x' }))).toThrow(/IMAGE_PROXY_ALLOWED_PORTS/);
  });

  it('needs IMAGE_PROXY_KEY (32 bytes) in every mode, and says so at startup', () => {
    for (const NODE_ENV of ['production', 'development', 'test']) {
      expect(() => loadConfig(testEnv({ NODE_ENV, IMAGE_PROXY_KEY: undefined }))).toThrow(
        /IMAGE_PROXY_KEY: required, the same for every server and worker/,
      );
      expect(() => loadConfig(testEnv({ NODE_ENV, IMAGE_PROXY_KEY: '  ' }))).toThrow(/IMAGE_PROXY_KEY: required/);
    }
    expect(() => loadConfig(testEnv({ IMAGE_PROXY_KEY: randomBytes(16).toString('base64') }))).toThrow(
      /IMAGE_PROXY_KEY: must be 32 bytes/,
    );
    const hex = randomBytes(32);
    expect(loadConfig(testEnv({ IMAGE_PROXY_KEY: hex.toString('hex') })).imageProxy.key.equals(hex)).toBe(true);
    expect(loadConfig(testEnv({ IMAGE_PROXY_KEY: hex.toString('base64') })).imageProxy.key.equals(hex)).toBe(true);
  });
});
