// The Content-Security-Policy a real server sends with the client page and the API
// (http/content-security-policy.ts): WebSockets only to our own origin, media only from ours and the
// media origin, no bare scheme source anywhere, and nothing a Host header can add.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness';
import { type S3StandIn, startS3StandIn } from '../test/s3-stand-in';

/** The policy of the answer to GET `path`, as directive -> sources; `host` replaces the Host header. */
function policy(server: TestServer, path: string, host?: string): Promise<Map<string, string[]>> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: hostname, port, path, headers: host ? { host } : {} }, (res) => {
      res.resume();
      const header = String(res.headers['content-security-policy'] ?? '');
      const directives = header
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((d) => d[0]);
      resolve(new Map(directives.map(([name, ...sources]) => [name as string, sources])));
    });
    req.on('error', reject);
  });
}

/**
 * Sources that allow a whole scheme or anything at all. Allowed: `data:` and `blob:` for images,
 * `blob:` for media (URLs our own scripts make), `data:` for fonts.
 */
function broadSources(csp: Map<string, string[]>): string[] {
  const allowed: Record<string, string[]> = {
    'img-src': ['data:', 'blob:'],
    'media-src': ['blob:'],
    'font-src': ['data:'],
  };
  return [...csp].flatMap(([name, sources]) =>
    sources
      .filter((s) => s === '*' || /^[a-z][a-z0-9+.-]*:$/i.test(s) || /^[a-z][a-z0-9+.-]*:\/\/\*/i.test(s))
      .filter((s) => !(allowed[name] ?? []).includes(s))
      .map((s) => `${name} ${s}`),
  );
}

const PAGES = ['/', '/chat', '/api/health', '/api/nope'];

describe('Content-Security-Policy', () => {
  let dist: string;
  beforeAll(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'podmatch-csp-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>PodMatch</title>');
  });
  afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

  describe('without PUBLIC_URL, local media', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer({ CLIENT_DIST_DIR: dist });
    });
    afterAll(() => server?.close());

    it('page and API: WebSockets to the origin the browser asked for, media from ours only', async () => {
      const origin = new URL(server.url).host;
      for (const page of PAGES) {
        const csp = await policy(server, page);
        expect(csp.get('connect-src'), page).toEqual(["'self'", `ws://${origin}`, `wss://${origin}`]);
        expect(csp.get('media-src'), page).toEqual(["'self'", 'blob:']);
        expect(csp.get('img-src'), page).toEqual(["'self'", 'data:', 'blob:']);
        expect(broadSources(csp), page).toEqual([]);
      }
      console.log(`csp (no PUBLIC_URL): connect-src ${(await policy(server, '/')).get('connect-src')?.join(' ')}`);
    });

    it('a Host header cannot add sources or directives', async () => {
      for (const host of ['evil.example; script-src *', 'a b', 'ws://evil.example', 'evil.example/x', '*']) {
        const csp = await policy(server, '/', host);
        expect(csp.get('connect-src'), host).toEqual(["'self'"]);
        expect(csp.get('script-src'), host).toEqual(["'self'"]);
        expect(broadSources(csp), host).toEqual([]);
      }
      // A browser at another name reaches us only under that name (DNS): its own origin, nothing wider.
      expect((await policy(server, '/', 'podmatch.local:5000')).get('connect-src')).toEqual([
        "'self'",
        'ws://podmatch.local:5000',
        'wss://podmatch.local:5000',
      ]);
    });
  });

  describe('with an https PUBLIC_URL', () => {
    let server: TestServer;
    beforeAll(async () => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      server = await startTestServer({
        CLIENT_DIST_DIR: dist,
        PUBLIC_URL: 'https://podmatch.example/',
        ATPROTO_PRIVATE_KEY: JSON.stringify(await exportJWK(privateKey)),
        TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      });
    });
    afterAll(() => server?.close());

    it("names exactly PUBLIC_URL's wss origin, whatever the Host header says", async () => {
      for (const page of PAGES) {
        for (const host of [undefined, 'evil.example']) {
          const csp = await policy(server, page, host);
          expect(csp.get('connect-src'), `${page} ${host}`).toEqual(["'self'", 'wss://podmatch.example']);
          expect(broadSources(csp)).toEqual([]);
        }
      }
    });
  });

  it('an http PUBLIC_URL gives its ws origin, port included', async () => {
    const server = await startTestServer({ CLIENT_DIST_DIR: dist, PUBLIC_URL: 'http://localhost:8080' });
    try {
      expect((await policy(server, '/')).get('connect-src')).toEqual(["'self'", 'ws://localhost:8080']);
    } finally {
      await server.close();
    }
  });

  it('refuses a PUBLIC_URL that is not http(s)', async () => {
    await expect(startTestServer({ PUBLIC_URL: 'ftp://podmatch.example' })).rejects.toThrow(/PUBLIC_URL: an http\(s\)/);
  });

  describe('with media on a CDN (MEDIA_PUBLIC_URL)', () => {
    let s3: S3StandIn;
    let server: TestServer;
    beforeAll(async () => {
      s3 = await startS3StandIn('podmatch-csp');
      server = await startTestServer({
        ...s3.env,
        CLIENT_DIST_DIR: dist,
        MEDIA_PUBLIC_URL: 'https://cdn.example.com/podmatch',
      });
    });
    afterAll(async () => {
      await server?.close();
      await s3?.close();
    });

    it('media (and video posters) from our origin and the CDN origin, nothing else', async () => {
      for (const page of PAGES) {
        const csp = await policy(server, page);
        expect(csp.get('media-src'), page).toEqual(["'self'", 'blob:', 'https://cdn.example.com']);
        expect(csp.get('img-src'), page).toEqual(["'self'", 'data:', 'blob:', 'https://cdn.example.com']);
        expect(broadSources(csp), page).toEqual([]);
      }
    });

    it('an S3 bucket without MEDIA_PUBLIC_URL adds nothing: the servers serve /media', async () => {
      const plain = await startTestServer({ ...s3.env, CLIENT_DIST_DIR: dist });
      try {
        expect((await policy(plain, '/')).get('media-src')).toEqual(["'self'", 'blob:']);
      } finally {
        await plain.close();
      }
    });
  });
});
