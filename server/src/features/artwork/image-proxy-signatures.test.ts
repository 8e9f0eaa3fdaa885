// The image proxy fetches only URLs the server handed out (docs/image-proxy.md, "Signed URLs"): an
// attacker's URL, a tampered signature or one made for another url, name or key is a 404, and the
// upstream (a loopback server the test allows, so only the signature stands in the way) sees nothing.
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { IMAGE_PROXY_PATH, type PodcastSummary, type UserPodcastEntry } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArtworkUrls } from '../../core/artwork/artwork-urls';
import { startServerProcess } from '../../test/app-process';
import { startTestServer, TestClient, type TestServer } from '../../test/harness';
import { freePort } from '../../test/spotify-flow';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(1024)]);

describe('image proxy: only signed URLs are fetched', () => {
  const hits = new Map<string, number>();
  let upstream: http.Server;
  let base: string;
  let server: TestServer;
  let settings: Record<string, string>;
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  let em: EntityManager;
  let token: string;
  let userId: number;

  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'podmatch-image-sig-'));
    dirs.push(dir);
    return dir;
  };
  const hitsOf = (at: string) => hits.get(at) ?? 0;
  const total = () => [...hits.values()].reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      const at = new URL(req.url ?? '/', 'http://x').pathname;
      hits.set(at, hitsOf(at) + 1);
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    base = `http://127.0.0.1:${port}`;
    // The upstream is reachable (allowed for the test): only the signature check can keep a request away.
    settings = { IMAGE_PROXY_ALLOWED_IPS: '127.0.0.1', IMAGE_PROXY_ALLOWED_PORTS: String(port) };
    server = await startTestServer({ ...settings, IMAGE_CACHE_DIR: tempDir() });
    em = server.running.deps.orm.em.fork() as EntityManager;
    ({
      token,
      user: { id: userId },
    } = await server.login());
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    await server?.close();
    upstream?.closeAllConnections();
    upstream?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A catalog show (searchable by anyone) whose artwork is `at` on the upstream; its unique name. */
  async function show(at: string): Promise<string> {
    const name = `Signed ${randomUUID().slice(0, 8)}`;
    await em
      .getConnection()
      .execute('insert into podcasts (name, image_url, verified_at, created_at) values (?, ?, now(), now())', [
        name,
        `${base}${at}`,
      ]);
    return name;
  }

  /** The show as a search answer presents it. */
  async function searched(name: string): Promise<{ answer: string; summary: PodcastSummary }> {
    const res = await server.call('GET', `/api/podcasts/search?q=${encodeURIComponent(name)}`, { token });
    expect(res.status).toBe(200);
    const summary = (res.json as PodcastSummary[]).find((p) => p.name === name);
    if (!summary) throw new Error(`${name} not found`);
    return { answer: res.text, summary };
  }

  /** A proxy path with its query parameters replaced as given (undefined removes one). */
  function variant(signed: string, changes: Record<string, string | undefined>): string {
    const query = new URLSearchParams(signed.slice(signed.indexOf('?') + 1));
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) query.delete(key);
      else query.set(key, value);
    }
    return `${IMAGE_PROXY_PATH}?${query.toString()}`;
  }

  async function image(client: TestClient, at: string) {
    const res = await fetch(`${client.url}${at}`);
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
  }

  it('serves the artwork URL an API answer carries; the answer never carries the remote address', async () => {
    const name = await show('/art/searched.png');
    const { answer, summary } = await searched(name);
    expect(summary.imageUrl).toMatch(/^\/api\/proxy\/image\?url=.+&name=.+&sig=[\w-]{43}$/);
    expect(answer).not.toContain(`${base}/art/searched.png`);

    const first = await image(server, summary.imageUrl as string);
    expect(first.status).toBe(200);
    expect(first.type).toBe('image/png');
    expect(first.body.equals(PNG)).toBe(true);
    expect(hitsOf('/art/searched.png')).toBe(1);

    // The library entry of the same show carries the same signed URL.
    const added = await server.call('POST', `/api/users/${userId}/podcasts`, {
      token,
      body: { podcastId: summary.id },
    });
    expect(added.status).toBe(201);
    expect((added.json as UserPodcastEntry).podcast.imageUrl).toBe(summary.imageUrl);
    const library = await server.call('GET', `/api/users/${userId}/podcasts`, { token });
    const entry = (library.json as UserPodcastEntry[]).find((e) => e.podcastId === summary.id);
    expect(entry?.podcast.imageUrl).toBe(summary.imageUrl);
  });

  it('answers 404 without a fetch for an unsigned URL, a tampered signature, or one made for another url, name or key', async () => {
    const name = await show('/art/genuine.png');
    const signed = (await searched(name)).summary.imageUrl as string;
    const sig = new URLSearchParams(signed.split('?')[1]).get('sig') as string;
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`;
    const attacker = `${base}/art/attacker.png`;
    const otherKey = new ArtworkUrls(randomBytes(32));
    const forged = [
      `${IMAGE_PROXY_PATH}?${new URLSearchParams({ url: attacker, name: 'X' }).toString()}`,
      variant(signed, { url: attacker }),
      variant(signed, { name: 'Another name' }),
      variant(signed, { sig: flipped }),
      variant(signed, { sig: undefined }),
      variant(signed, { sig: '' }),
      variant(signed, { sig: sig.slice(0, -1) }),
      variant(signed, { sig: `${sig}A` }),
      variant(signed, { sig: Buffer.from(sig).toString('base64url') }),
      variant(signed, { name: undefined }),
      otherKey.proxyUrl(attacker, 'X'),
      otherKey.proxyUrl(`${base}/art/genuine.png`, name),
    ];
    // Each one many times at once, several times the database pool: still nothing goes out.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => forged.map((at) => server.call('GET', at))).flat(),
    );
    for (const [i, res] of answers.entries()) {
      expect(res.status, forged[i % forged.length]).toBe(404);
      expect(res.json?.message).toBe('No such image.');
    }
    expect(hitsOf('/art/attacker.png')).toBe(0);
    expect(hitsOf('/art/genuine.png')).toBe(0);

    // The genuine URL is fetched: the upstream would have seen the forged ones.
    expect((await image(server, signed)).status).toBe(200);
    expect(hitsOf('/art/genuine.png')).toBe(1);
  });

  it('still answers the placeholder for a name alone (it fetches and stores nothing)', async () => {
    const before = total();
    const res = await server.call('GET', `${IMAGE_PROXY_PATH}?name=Radiolab`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(total()).toBe(before);
  });

  it('serves a URL on another server process with the same key, and refuses it on one with another key', async () => {
    const [samePort, otherPort] = [await freePort(), await freePort()];
    const started = await Promise.all([
      startServerProcess(samePort, { ...settings, IMAGE_CACHE_DIR: tempDir() }),
      startServerProcess(otherPort, {
        ...settings,
        IMAGE_CACHE_DIR: tempDir(),
        IMAGE_PROXY_KEY: randomBytes(32).toString('base64'),
      }),
    ]);
    children.push(...started);
    const same = new TestClient(`http://127.0.0.1:${samePort}`);
    const other = new TestClient(`http://127.0.0.1:${otherPort}`);
    const signed = (await searched(await show('/art/elsewhere.png'))).summary.imageUrl as string;

    const refused = await image(other, signed);
    expect(refused.status).toBe(404);
    expect(hitsOf('/art/elsewhere.png')).toBe(0);

    const served = await image(same, signed);
    expect(served.status).toBe(200);
    expect(served.body.equals(PNG)).toBe(true);
    expect(hitsOf('/art/elsewhere.png')).toBe(1);
  });
});
