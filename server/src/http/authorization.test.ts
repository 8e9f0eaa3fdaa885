// One table over every endpoint of the shared API: who may call it, and what others get.

import { type Api, api, buildPath } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness';

type Rule =
  | { policy: 'public' }
  | { policy: 'signed-in' }
  | { policy: 'owner'; otherUserStatus: 403 | 404; body?: Record<string, unknown> };

/** Every endpoint needs a row here; a new endpoint without one fails the first test. */
const rules: Record<keyof Api, Rule> = {
  health: { policy: 'public' },
  devLogin: { policy: 'public' },
  logout: { policy: 'signed-in' },
  getUser: { policy: 'signed-in' },
  updateUser: { policy: 'owner', otherUserStatus: 403, body: { displayName: 'Nope' } },
  generateAvatar: { policy: 'owner', otherUserStatus: 403 },
};

describe('authorization matrix', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('has a rule for every endpoint', () => {
    expect(Object.keys(rules).sort()).toEqual(Object.keys(api).sort());
  });

  for (const [name, endpoint] of Object.entries(api) as [keyof Api, Api[keyof Api]][]) {
    const rule = rules[name];
    if (rule.policy === 'public') continue;

    it(`${name}: ${endpoint.method} ${endpoint.path} refuses anonymous callers with 401`, async () => {
      const owner = await server.login();
      const path = buildPath(endpoint.path, { userId: owner.user.id });
      const res = await server.call(endpoint.method, path, { body: rule.policy === 'owner' ? rule.body : undefined });
      expect(res.status).toBe(401);
    });

    if (rule.policy === 'owner') {
      it(`${name}: another user gets ${rule.otherUserStatus} and the owner succeeds`, async () => {
        const owner = await server.login();
        const other = await server.login();
        const path = buildPath(endpoint.path, { userId: owner.user.id });
        const refused = await server.call(endpoint.method, path, { token: other.token, body: rule.body });
        expect(refused.status).toBe(rule.otherUserStatus);
        const allowed = await server.call(endpoint.method, path, { token: owner.token, body: rule.body });
        expect(allowed.status).toBe(endpoint.status);
      });
    }
  }
});
