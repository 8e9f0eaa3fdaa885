import { createLogger } from '@server/core/logger';
import { collectEvents, nextEvent, startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';
import { renderPortrait, renderPortraitSvg } from './avatar-generate.job';

const AVATAR_URL = /^\/media\/avatars\/[A-Za-z0-9_-]{22}-512\.webp$/;

describe('generated portraits', () => {
  it('are raster images, the same for the same id and different between ids', async () => {
    const [a, again, b] = await Promise.all([renderPortrait(101), renderPortrait(101), renderPortrait(102)]);
    expect(a.map(([size]) => size)).toEqual([512, 128]);
    for (const [size, data] of a) {
      const meta = await sharp(data).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', size, size]);
      expect(data.includes(Buffer.from('<svg'))).toBe(false);
    }
    expect(again[0]?.[1].equals(a[0]?.[1] ?? Buffer.alloc(0))).toBe(true);
    expect(b[0]?.[1].equals(a[0]?.[1] ?? Buffer.alloc(0))).toBe(false);
    // Different faces, not just different bytes: the decoded pixels differ a lot.
    const pixels = (data: Buffer) => sharp(data).resize(32, 32).removeAlpha().raw().toBuffer();
    const [pa, pb] = await Promise.all([pixels(a[0]?.[1] as Buffer), pixels(b[0]?.[1] as Buffer)]);
    let differing = 0;
    for (let i = 0; i < pa.length; i++) if (Math.abs((pa[i] ?? 0) - (pb[i] ?? 0)) > 24) differing++;
    expect(differing / pa.length).toBeGreaterThan(0.1);
  });

  it('depend on the id only (the SVG source is seeded by it)', () => {
    expect(renderPortraitSvg(7)).toBe(renderPortraitSvg(7));
    expect(renderPortraitSvg(7)).not.toBe(renderPortraitSvg(8));
  });
});

describe('server -> Redis -> worker -> socket, end to end', () => {
  let server: TestServer;
  let worker: RunningWorker;
  beforeAll(async () => {
    server = await startTestServer();
    worker = await startWorker(loadWorkerConfig(testEnv()), createLogger('worker', 'silent'));
  });
  afterAll(async () => {
    await worker.close();
    await server.close();
  });

  /** The picture a login's avatar job gave this person (polled, not slept). */
  const loginAvatar = (person: { token: string; user: { id: number } }) =>
    until(async () => {
      const res = await server.call('GET', `/api/users/${person.user.id}`, { token: person.token });
      return res.json.profilePicture as string | null;
    }, 'the login avatar');

  it('reports the worker as alive in /api/health', async () => {
    const res = await server.call('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, database: { ok: true }, redis: { ok: true }, worker: { ok: true } });
    expect(res.json.worker.workers).toBeGreaterThanOrEqual(1);
  });

  it("runs a job queued by the server and pushes its status to the user's room only", async () => {
    const owner = await server.login();
    const other = await server.login();
    const first = await loginAvatar(owner);
    await loginAvatar(other);
    expect(first).toMatch(AVATAR_URL);
    const ownerSocket = await server.socket(owner.token);
    const otherSocket = await server.socket(other.token);
    const leaked = collectEvents(otherSocket, 'job:status');

    const userUpdated = nextEvent(ownerSocket, 'user:updated', (u) => u.profilePicture !== first);
    const res = await server.call('POST', `/api/users/${owner.user.id}/generated-avatar`, { token: owner.token });
    expect(res.status).toBe(202);
    const { jobId } = res.json;
    expect(jobId).toEqual(expect.any(String));
    const completed = nextEvent(ownerSocket, 'job:status', (e) => e.jobId === jobId && e.state === 'completed');

    const [updated] = await userUpdated;
    expect(updated.profilePicture).toMatch(AVATAR_URL);
    expect((await completed)[0]).toMatchObject({ name: 'avatar.generate', progress: 100 });

    // A raster portrait, the same face as before under a new name; the old files are gone.
    const image = await fetch(`${server.url}${updated.profilePicture}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await image.arrayBuffer());
    expect((await sharp(bytes).metadata()).format).toBe('webp');
    expect(bytes.equals((await renderPortrait(owner.user.id))[0]?.[1] ?? Buffer.alloc(0))).toBe(true);
    expect((await fetch(`${server.url}${first}`)).status).toBe(404);
    expect((await fetch(`${server.url}${first.replace('-512.webp', '-128.webp')}`)).status).toBe(404);

    // The other user's own job, run by the same worker after ours: once its 'completed' is here,
    // anything of ours that leaked to them would have arrived before it.
    const theirs = await server.call('POST', `/api/users/${other.user.id}/generated-avatar`, { token: other.token });
    await nextEvent(otherSocket, 'job:status', (e) => e.jobId === theirs.json.jobId && e.state === 'completed');
    expect(leaked.filter(([e]) => (e as { jobId: string }).jobId === jobId)).toHaveLength(0);
    expect(leaked.some(([e]) => (e as { jobId: string }).jobId === theirs.json.jobId)).toBe(true);
  });

  it('never replaces an uploaded picture', async () => {
    const person = await server.login();
    const generated = await loginAvatar(person);
    const form = new FormData();
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#20b2aa' } })
      .png()
      .toBuffer();
    form.append('profilePicture', new Blob([new Uint8Array(photo)], { type: 'image/png' }), 'me.png');
    const upload = await server.call('POST', `/api/users/${person.user.id}/profile-picture`, {
      token: person.token,
      form,
    });
    expect(upload.status, upload.text).toBe(200);
    const uploaded = upload.json.profilePicture as string;
    // The upload replaced the generated avatar and deleted its files.
    expect((await fetch(`${server.url}${generated}`)).status).toBe(404);

    const socket = await server.socket(person.token);
    const res = await server.call('POST', `/api/users/${person.user.id}/generated-avatar`, { token: person.token });
    const [done] = await nextEvent(socket, 'job:status', (e) => e.jobId === res.json.jobId && e.state === 'completed');
    expect(done).toMatchObject({ state: 'completed' });
    const after = await server.call('GET', `/api/users/${person.user.id}`, { token: person.token });
    expect(after.json.profilePicture).toBe(uploaded);
    expect((await fetch(`${server.url}${uploaded}`)).status).toBe(200);
  });
});
