// One table over every endpoint of the shared API: who may call it, and what others get.

import { type Api, api, buildPath } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness';

type Rule =
  | { policy: 'public' }
  | { policy: 'signed-in' }
  | {
      policy: 'owner';
      otherUserStatus: 403 | 404;
      body?: Record<string, unknown>;
      ownerStatus?: number;
      /** Creates the owner's object and returns the path parameters that name it. */
      setup?: (server: TestServer, owner: { token: string; user: { id: number } }) => Promise<Record<string, number>>;
    };

/** An OPML import gives the owner one library entry; returns its id. */
async function ownEntry(server: TestServer, owner: { token: string; user: { id: number } }) {
  const form = new FormData();
  const xml = `<opml><body><outline xmlUrl="https://authz.example.com/${owner.user.id}/${Math.random()}.xml"/></body></opml>`;
  form.append('opml', new Blob([xml]), 'a.opml');
  await fetch(`${server.url}/api/users/${owner.user.id}/podcasts/opml`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  });
  const list = await server.call('GET', `/api/users/${owner.user.id}/podcasts`, { token: owner.token });
  return { id: list.json[0].id as number };
}

/** A mutual match between the owner and a fresh user; returns its id (features/matches). */
async function ownMatch(server: TestServer, owner: { token: string; user: { id: number } }) {
  const partner = await server.login();
  const like = (from: { token: string; user: { id: number } }, to: number) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      body: { user1Id: from.user.id, user2Id: to, intent: 'romantic', user1Liked: true },
    });
  await like(owner, partner.user.id);
  const res = await like(partner, owner.user.id);
  return { matchId: res.json.id as number };
}

/** Every endpoint needs a row here; a new endpoint without one fails the first test. */
const rules: Record<keyof Api, Rule> = {
  health: { policy: 'public' },
  devLogin: { policy: 'public' },
  logout: { policy: 'signed-in' },
  getUser: { policy: 'signed-in' },
  updateUser: { policy: 'owner', otherUserStatus: 403, body: { displayName: 'Nope' } },
  generateAvatar: { policy: 'owner', otherUserStatus: 403 },
  feed: { policy: 'owner', otherUserStatus: 403 },
  feedCounts: { policy: 'owner', otherUserStatus: 403 },
  spotifyStatus: { policy: 'owner', otherUserStatus: 403 },
  // A fresh owner has no Spotify connected: 409 'Connect Spotify first' (the sync itself: spotify tests).
  spotifySync: { policy: 'owner', otherUserStatus: 403, ownerStatus: 409 },
  spotifyDisconnect: { policy: 'owner', otherUserStatus: 403 },
  spotifyConnectTicket: { policy: 'signed-in' },
  spotifyExchange: { policy: 'public' },
  listUserPodcasts: { policy: 'owner', otherUserStatus: 403 },
  searchPodcasts: { policy: 'signed-in' },
  // A podcast id that does not exist: 404 for the owner (adding a real one: podcasts tests).
  addUserPodcast: { policy: 'owner', otherUserStatus: 403, body: { podcastId: 2_000_000_000 }, ownerStatus: 404 },
  // Without a file the owner gets 400 (real imports: podcasts tests).
  importOpml: { policy: 'owner', otherUserStatus: 403, ownerStatus: 400 },
  updateUserPodcast: { policy: 'owner', otherUserStatus: 404, body: { hidden: true }, setup: ownEntry },
  removeUserPodcast: { policy: 'owner', otherUserStatus: 404, setup: ownEntry },
  listMatches: { policy: 'owner', otherUserStatus: 403 },
  getUserMatch: { policy: 'owner', otherUserStatus: 403, setup: ownMatch },
  getMatch: { policy: 'owner', otherUserStatus: 404, setup: ownMatch },
  updateMatch: { policy: 'owner', otherUserStatus: 404, body: { isFavorite: true }, setup: ownMatch },
  markMatchSeen: { policy: 'owner', otherUserStatus: 404, setup: ownMatch },
  unmatch: { policy: 'owner', otherUserStatus: 404, setup: ownMatch },
  // Acting for someone else (user1Id other than the caller) is a 403: features/matches tests.
  createMatch: { policy: 'signed-in' },
  // Blocking and reporting act on the caller's own behalf only: features/matches tests.
  blockUser: { policy: 'signed-in' },
  reportUser: { policy: 'signed-in' },
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
      const path = buildPath(endpoint.path, { userId: owner.user.id, id: 1, matchId: 1 });
      const res = await server.call(endpoint.method, path, { body: rule.policy === 'owner' ? rule.body : undefined });
      expect(res.status).toBe(401);
    });

    if (rule.policy === 'owner') {
      it(`${name}: another user gets ${rule.otherUserStatus} and the owner succeeds`, async () => {
        const owner = await server.login();
        const other = await server.login();
        const extra = (await rule.setup?.(server, owner)) ?? {};
        const path = buildPath(endpoint.path, { userId: owner.user.id, ...extra });
        const refused = await server.call(endpoint.method, path, { token: other.token, body: rule.body });
        expect(refused.status).toBe(rule.otherUserStatus);
        const allowed = await server.call(endpoint.method, path, { token: owner.token, body: rule.body });
        expect(allowed.status).toBe(rule.ownerStatus ?? endpoint.status);
      });
    }
  }
});
