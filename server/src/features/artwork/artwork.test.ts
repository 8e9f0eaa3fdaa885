import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FeedSharedPodcastSchema, IMAGE_PROXY_LIMITS, PodcastSummarySchema, placeholderImageUrl } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeholderColors, placeholderInitial, renderPlaceholderSvg } from '../../core/artwork/placeholder';
import { startTestServer, type TestServer, testArtworkUrls } from '../../test/harness';

describe('letter placeholder', () => {
  it('uses the first letter or digit, skipping a leading "The" and symbols', () => {
    expect(placeholderInitial('The Daily')).toBe('D');
    expect(placeholderInitial('99% Invisible')).toBe('9');
    expect(placeholderInitial('“Ólafur’s” show')).toBe('Ó');
    expect(placeholderInitial('🎧 beats')).toBe('B');
    expect(placeholderInitial('The')).toBe('T');
    expect(placeholderInitial('!!!')).toBe('?');
  });

  it('derives a stable colour from the name', () => {
    expect(placeholderColors('Radiolab')).toEqual(placeholderColors(' radiolab '));
    expect(placeholderColors('Radiolab')).not.toEqual(placeholderColors('Serial'));
  });

  it('escapes the name', () => {
    const svg = renderPlaceholderSvg('<script>alert("x")</script> & co');
    expect(svg).not.toContain('<script');
    expect(svg).toContain('aria-label="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co"');
  });
});

describe('GET /api/proxy/image', () => {
  let server: TestServer;
  let cacheDir: string;
  beforeAll(async () => {
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'podmatch-image-cache-'));
    server = await startTestServer({ IMAGE_CACHE_DIR: cacheDir });
  });
  afterAll(async () => {
    await server.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  const get = (query: string) => server.call('GET', `/api/proxy/image${query}`);

  it('answers anyone, signed in or not, with an SVG placeholder and cache headers', async () => {
    const res = await get('?name=Hardcore%20History');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('cache-control')).toContain('max-age=');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(res.text.trim().endsWith('</svg>')).toBe(true);
    expect(res.text).toContain('>H</text>');
    const { token } = await server.login();
    const signedIn = await server.call('GET', '/api/proxy/image?name=Hardcore%20History', { token });
    expect(signedIn.text).toBe(res.text);
  });

  it('escapes the name in the SVG', async () => {
    const res = await get(`?name=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('<script');
    expect(res.text).toContain('&lt;script&gt;');
  });

  it('answers the placeholder for a signed url it will not fetch (image-proxy.test.ts has the rest)', async () => {
    for (const url of ['http://example.com:8080/cover.jpg', 'javascript:alert(1)', 'http://127.0.0.1/x']) {
      const res = await server.call(
        'GET',
        `${testArtworkUrls().proxyUrl(url, 'Serial')}&spotifyId=2hmkzUtix0qTqvtpPcMzEL`,
      );
      expect(res.status).toBe(200);
      expect(res.text).toContain('>S</text>');
    }
  });

  it('works with the shared placeholder URL helper', async () => {
    const res = await server.call('GET', placeholderImageUrl('The Moth\n'));
    expect(res.status).toBe(200);
    expect(res.text).toContain('>M</text>');
  });

  it('keeps remote addresses out of answers: the contract takes only a proxy URL for artwork', () => {
    const show = { id: 1, name: 'Serial', creator: null, category: null };
    for (const schema of [PodcastSummarySchema, FeedSharedPodcastSchema]) {
      expect(schema.safeParse({ ...show, imageUrl: 'https://img.example/serial.jpg' }).success).toBe(false);
      expect(
        schema.safeParse({ ...show, imageUrl: testArtworkUrls().forShow('Serial', 'https://img.example/a.jpg') })
          .success,
      ).toBe(true);
      expect(schema.safeParse({ ...show, imageUrl: null }).success).toBe(true);
    }
  });

  it('signs only what the proxy could fetch, with a name the query schema keeps as it is', async () => {
    const artwork = testArtworkUrls();
    expect(artwork.forShow('Serial', null)).toBeNull();
    expect(artwork.forShow('Serial', 'ftp://example.com/a.jpg')).toBeNull();
    expect(artwork.forShow('Serial', `https://example.com/${'a'.repeat(IMAGE_PROXY_LIMITS.urlMaxLength)}`)).toBeNull();
    expect(artwork.forShow('Serial', 'https://example.com/a\n.jpg')).toBeNull();
    // Names of any length and content: trimmed, cut at 200 characters (not inside a surrogate pair).
    for (const name of [' The Moth\n', `${'x'.repeat(199)}😀 tail`, `${'y'.repeat(199)} z`, '\u0000', '']) {
      const signed = artwork.forShow(name, 'http://example.com:8080/cover.jpg') as string;
      const res = await server.call('GET', signed);
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    }
  });

  it('rejects bad input with 400 and a message', async () => {
    const bad = [
      '',
      '?name=',
      '?name=%20%20',
      `?name=${'a'.repeat(IMAGE_PROXY_LIMITS.nameMaxLength + 1)}`,
      '?name=a&name=b',
      '?name=a%00b',
      '?name=a&spotifyId=../../etc',
      `?url=https://example.com/${'a'.repeat(IMAGE_PROXY_LIMITS.urlMaxLength)}`,
      '?name[x]=1',
    ];
    for (const query of bad) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      // A sentence for people (as every endpoint's validation answers), with the field in `issues`.
      expect(res.json?.message, query).toMatch(/^[A-Z].*\.$/);
      expect(res.json?.issues?.[0]?.path, query).toMatch(/^query\./);
    }
  });
});
