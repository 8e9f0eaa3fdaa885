import { createLogger } from '@server/core/logger';
import { collectEvents, nextEvent, startTestServer, type TestServer, testEnv, until } from '@server/test/harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';
import { avatarInitial, renderAvatarSvg } from './avatar-generate.job';

describe('avatar rendering', () => {
  it('uses the first letter or digit, skipping emoji and symbols', () => {
    expect(avatarInitial('🎧 maya')).toBe('M');
    expect(avatarInitial('  ★42')).toBe('4');
    expect(avatarInitial('éclair')).toBe('É');
    expect(avatarInitial('🔥🔥')).toBe('?');
  });

  it('escapes the name inside the SVG', () => {
    const svg = renderAvatarSvg('<script>"x"</script>', ['#000', '#fff']);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
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

  it('reports the worker as alive in /api/health', async () => {
    const res = await server.call('GET', '/api/health');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, database: { ok: true }, redis: { ok: true }, worker: { ok: true } });
    expect(res.json.worker.workers).toBeGreaterThanOrEqual(1);
  });

  it("runs a job queued by the server and pushes its status to the user's room only", async () => {
    const owner = await server.login();
    const other = await server.login();
    // Let the avatar jobs queued by the two logins finish (polled, not slept), so the events below are ours.
    for (const person of [owner, other]) {
      await until(async () => {
        const res = await server.call('GET', `/api/users/${person.user.id}`, { token: person.token });
        return res.json.profilePicture;
      }, 'the login avatar');
    }
    const ownerSocket = await server.socket(owner.token);
    const otherSocket = await server.socket(other.token);
    const leaked = collectEvents(otherSocket, 'job:status');

    const renamed = await server.call('PUT', `/api/users/${owner.user.id}`, {
      token: owner.token,
      body: { displayName: 'Zoë', intent: 'professional' },
    });
    const oldPicture = renamed.json.profilePicture;
    const userUpdated = nextEvent(
      ownerSocket,
      'user:updated',
      (u) => u.displayName === 'Zoë' && u.profilePicture !== oldPicture,
    );
    const res = await server.call('POST', `/api/users/${owner.user.id}/generated-avatar`, { token: owner.token });
    expect(res.status).toBe(202);
    const { jobId } = res.json;
    expect(jobId).toEqual(expect.any(String));
    const completed = nextEvent(ownerSocket, 'job:status', (e) => e.jobId === jobId && e.state === 'completed');

    const [updated] = await userUpdated;
    expect(updated.profilePicture).toMatch(new RegExp(`^/media/avatars/${owner.user.id}-[0-9a-f]{12}\\.svg$`));
    expect((await completed)[0]).toMatchObject({ name: 'avatar.generate', progress: 100 });

    const image = await fetch(`${server.url}${updated.profilePicture}`);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toContain('image/svg+xml');
    expect(await image.text()).toContain('>Z</text>');

    // The other user's own job, run by the same worker after ours: once its 'completed' is here,
    // anything of ours that leaked to them would have arrived before it.
    const theirs = await server.call('POST', `/api/users/${other.user.id}/generated-avatar`, { token: other.token });
    await nextEvent(otherSocket, 'job:status', (e) => e.jobId === theirs.json.jobId && e.state === 'completed');
    expect(leaked.filter(([e]) => (e as { jobId: string }).jobId === jobId)).toHaveLength(0);
    expect(leaked.some(([e]) => (e as { jobId: string }).jobId === theirs.json.jobId)).toBe(true);
  });
});
