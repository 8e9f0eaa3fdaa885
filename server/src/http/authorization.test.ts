// The authorization matrix, derived from the contract: every endpoint of the shared API, called by
// every role, must answer what its access rule (shared/src/api/endpoint.ts) says. The table below
// only says how to make a well-formed request; who gets what comes from `endpoint.access`.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type Access,
  type Api,
  api,
  buildPath,
  DEFAULT_NOTIFICATION_PREFERENCES,
  type LoginResponse,
} from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPushSubscription } from '../../../scripts/lib/push-stand-in';
import { sql } from '../core/db/sql';
import { shareAShow } from '../test/feed-fixture';
import { startTestServer, type TestServer, uniqueName } from '../test/harness';

const ROLES = ['owner', 'party', 'stranger', 'moderator', 'admin', 'anonymous'] as const;
type Role = (typeof ROLES)[number];

/** What an access rule grants each role. 'ok' is the endpoint's own success answer. */
const EXPECTED: Record<Access, Record<Role, 'ok' | 401 | 403 | 404>> = {
  public: { owner: 'ok', party: 'ok', stranger: 'ok', moderator: 'ok', admin: 'ok', anonymous: 'ok' },
  user: { owner: 'ok', party: 'ok', stranger: 'ok', moderator: 'ok', admin: 'ok', anonymous: 401 },
  owner: { owner: 'ok', party: 403, stranger: 403, moderator: 403, admin: 403, anonymous: 401 },
  viewer: { owner: 'ok', party: 'ok', stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  matchParty: { owner: 'ok', party: 'ok', stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  libraryEntryOwner: { owner: 'ok', party: 404, stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  videoProjectOwner: { owner: 'ok', party: 404, stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  // The body's senderId is the caller's own (the stranger too: sending as themself into someone
  // else's match), so what a stranger meets is the match they may not see.
  matchSender: { owner: 'ok', party: 'ok', stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  // A like or pass: the owner on someone in their feed, the party on their current match (the
  // owner), a stranger on that same someone, who is not in the stranger's feed.
  decisionTarget: { owner: 'ok', party: 'ok', stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  // A report: likewise, the owner on someone in their feed, the party on their match, a stranger
  // on someone they never came across.
  reportTarget: { owner: 'ok', party: 'ok', stranger: 404, moderator: 404, admin: 404, anonymous: 401 },
  // Moderation routes do not exist for anyone without the role, signed in or not.
  moderator: { owner: 404, party: 404, stranger: 404, moderator: 'ok', admin: 'ok', anonymous: 404 },
  admin: { owner: 404, party: 404, stranger: 404, moderator: 404, admin: 'ok', anonymous: 404 },
};

/**
 * A small world per test: the owner, their mutual match partner (the party), a stranger, the
 * owner's library entry, a catalog podcast and someone fresh to like, block or report (in the
 * owner's feed, not in the stranger's).
 */
interface World {
  owner: LoginResponse;
  party: LoginResponse;
  stranger: LoginResponse;
  matchId: number;
  entryId: number;
  podcastId: number;
  /** The owner's video project. */
  projectId: string;
  someone: LoginResponse;
  /** Holders of the moderation roles; `someone` is reported to them. */
  moderator: LoginResponse;
  admin: LoginResponse;
}

interface Sample {
  query?: Record<string, string>;
  body?: unknown;
  form?: FormData;
  /** The success answer when it is not the endpoint's own status (e.g. a 409 because Spotify is not set up). */
  ok?: number | number[];
}

/** A valid 1x1 PNG, for the picture upload. */
const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** How to make a well-formed call of each endpoint; `caller` is undefined for the anonymous role. */
const samples: { [K in keyof Api]: (world: World, caller: LoginResponse | undefined) => Sample } = {
  // Without a worker process in this tier, health answers 503 ("worker down"): still no 401.
  health: () => ({ ok: [200, 503] }),
  healthLive: () => ({}),
  healthReady: () => ({}),
  // The placeholder for a name: fetches nothing (a remote URL needs the server's signature).
  artworkImage: () => ({ query: { name: 'Matrix Show' } }),
  devLogin: () => ({ body: { username: uniqueName('matrix') } }),
  signInMethods: () => ({}),
  // --- email codes (features/email-auth) ---
  emailCodeStart: () => ({ body: { email: `${uniqueName('matrix')}@example.com` } }),
  // A code nobody was sent: refused, the right answer for anyone.
  emailCodeVerify: () => ({ body: { email: `${uniqueName('matrix')}@example.com`, code: '000000' }, ok: 400 }),
  emailLinkStart: () => ({ body: { email: `${uniqueName('matrix')}@example.com` } }),
  emailLinkVerify: () => ({ body: { email: `${uniqueName('matrix')}@example.com`, code: '000000' }, ok: 400 }),
  // Nobody in this world has an email identity: nothing to send a code to.
  reauthEmailStart: () => ({ ok: 409 }),
  reauthEmailVerify: () => ({ body: { code: '000000' }, ok: 400 }),
  // The development mailbox (this tier has no SMTP_URL): the page, a message nobody sent (the
  // path's id is the entry id), and the newest message to an address that got none.
  devMailbox: () => ({}),
  devMailMessage: () => ({ ok: 404 }),
  devMailLatest: () => ({ query: { to: `${uniqueName('matrix')}@example.com` }, ok: 404 }),

  // --- passkeys (features/passkeys) ---
  passkeySignUpOptions: () => ({ body: {} }),
  // A credential for no challenge of this browser: refused.
  passkeySignUpVerify: () => ({ body: { response: { id: 'x' } }, ok: 400 }),
  passkeySignInOptions: () => ({}),
  passkeySignInVerify: () => ({ body: { response: { id: 'x' } }, ok: 400 }),
  passkeyAddOptions: () => ({}),
  passkeyAdd: () => ({ body: { response: { id: 'x' } }, ok: 400 }),
  // Nobody in this world has a passkey: nothing to confirm with.
  reauthPasskeyOptions: () => ({ ok: 409 }),
  reauthPasskeyVerify: () => ({ body: { response: { id: 'x' } }, ok: 400 }),

  // --- ways to sign in (features/identities) ---
  signInWays: () => ({}),
  // No identity with this id belongs to the owner.
  renamePasskey: () => ({ body: { name: 'Laptop' }, ok: 404 }),
  removeSignInWay: () => ({ ok: 404 }),

  // --- Bluesky sign-in ---
  // No AT Protocol network in this tier: the handle does not resolve (422, for anyone).
  blueskySignInStart: () => ({ body: { handle: 'nobody.invalid' }, ok: 422 }),
  blueskyExchange: () => ({ body: { code: 'x'.repeat(43) }, ok: 400 }),

  logout: () => ({}),
  logoutEverywhere: () => ({}),
  // Browser navigations: Spotify is not configured in this tier, so each sends the browser to the
  // login screen with that error (302 for anyone); the Bluesky callback with no state fails back.
  spotifySignIn: () => ({}),
  spotifyConnectStart: () => ({}),
  spotifyCallback: () => ({ query: { state: 'unknown', code: 'x' } }),
  blueskyCallback: () => ({ query: { state: 'unknown', code: 'x', iss: 'https://nobody.example' } }),
  // The loopback client's metadata and its (empty) key set.
  blueskyClientMetadata: () => ({}),
  blueskyJwks: () => ({}),
  // A code nobody issued: refused as expired, which is the right answer for anyone.
  spotifyExchange: () => ({ body: { code: 'x'.repeat(43) }, ok: 400 }),
  getUser: () => ({}),
  profileDetails: () => ({}),
  exportAccount: () => ({}),
  deleteAccount: () => ({ body: { confirm: 'DELETE' } }),
  updateUser: () => ({ body: { displayName: 'Renamed' } }),
  generateAvatar: () => ({}),
  uploadProfilePicture: () => {
    const form = new FormData();
    form.append('profilePicture', new Blob([Buffer.from(ONE_PIXEL_PNG, 'base64')]), 'me.png');
    return { form };
  },
  feed: () => ({}),
  feedCounts: () => ({}),
  listMatches: () => ({}),
  badges: () => ({}),
  getUserMatch: () => ({}),
  getMatch: () => ({}),
  createMatch: (w, caller) => ({
    body: {
      user1Id: caller?.user.id ?? w.owner.user.id,
      user2Id: caller === w.party ? w.owner.user.id : w.someone.user.id,
      intent: 'romantic',
      user1Liked: true,
    },
  }),
  updateMatch: () => ({ body: { isFavorite: true } }),
  markMatchSeen: () => ({}),
  unmatch: () => ({}),
  blockUser: (w) => ({ body: { userId: w.someone.user.id } }),
  // Nobody in this world passed anyone: a well-formed undo is a 404 for every signed-in caller.
  undoPass: (w) => ({ body: { userId: w.someone.user.id, intent: 'romantic' }, ok: 404 }),
  reportUser: (w, caller) => ({
    body: { reportedId: caller === w.party ? w.owner.user.id : w.someone.user.id, reason: 'spam' },
  }),
  listUserPodcasts: () => ({}),
  addUserPodcast: (w) => ({ body: { podcastId: w.podcastId } }),
  importOpml: (w) => {
    const form = new FormData();
    const xml = `<opml><body><outline xmlUrl="https://matrix.example.com/${w.owner.user.id}/${uniqueName()}.xml"/></body></opml>`;
    form.append('opml', new Blob([xml]), 'a.opml');
    return { form };
  },
  updateUserPodcast: () => ({ body: { hidden: true } }),
  removeUserPodcast: () => ({}),
  searchPodcasts: () => ({ query: { q: 'serial' } }),
  spotifyStatus: () => ({}),
  // No Spotify connected: 409 'Connect Spotify first' (the sync itself: spotify tests).
  spotifySync: () => ({ ok: 409 }),
  spotifyDisconnect: () => ({}),
  spotifyConnectTicket: () => ({}),
  // A connect nobody finished at Spotify: refused as expired, the right answer for any signed-in caller.
  spotifyConnectFinish: () => ({ body: { code: 'x'.repeat(43) }, ok: 400 }),
  blueskyStatus: () => ({}),
  // No AT Protocol network in this tier: the handle does not resolve (the owner got that far).
  blueskyLink: () => ({ body: { handle: 'nobody.invalid' }, ok: 422 }),
  blueskyFinish: () => ({ body: { code: 'x'.repeat(43) }, ok: 410 }),
  blueskyUnlink: () => ({}),
  listMessages: () => ({ query: { after: '0' } }),
  sendMessage: (w, caller) => ({
    body: {
      matchId: w.matchId,
      senderId: caller?.user.id ?? w.owner.user.id,
      content: 'Hello!',
      clientId: randomUUID(),
    },
  }),
  markMessagesRead: () => ({ body: { seq: 0 } }),
  // Without a worker process in this tier the video service is down (503); with one, 202.
  videoServiceStatus: () => ({}),
  generateVideo: () => ({ body: { intent: 'platonic', matchPercentage: 95 }, ok: [202, 503] }),
  // Not a video: the owner gets the content check's 415 (the others are refused before the upload is read).
  uploadVideo: () => {
    const form = new FormData();
    form.append('video', new Blob(['not a video']), 'clip.mp4');
    return { query: { intent: 'romantic' }, form, ok: 415 };
  },
  videoIntros: () => ({}),
  videoStatus: () => ({}),

  // --- moderation (features/moderation): `someone` was reported by the owner in every world ---
  moderationQueue: () => ({}),
  moderationSubject: () => ({}),
  moderationClaim: () => ({}),
  moderationRelease: () => ({}),
  moderationAct: () => ({
    body: { kind: 'warn', reason: 'spam', rule: 'spam', explanation: 'A warning from the matrix test.' },
  }),
  moderationAppeals: () => ({}),
  // No such appeal: the moderator's answer is that 404.
  moderationDecideAppeal: () => ({
    body: { outcome: 'upheld', explanation: 'The decision stands as taken.' },
    ok: 404,
  }),
  adminAuditLog: () => ({}),
  adminTransparency: () => ({}),
  myNotices: () => ({}),
  noticeSeen: () => ({ ok: 404 }),
  appealAction: () => ({ body: { actionId: 2_000_000_000, text: 'Please look at this again.' }, ok: 404 }),
  // A forged token: refused for anyone.
  appealWhileSuspended: () => ({ body: { token: 'x'.repeat(40), text: 'Please look at this again.' }, ok: 400 }),

  // --- push notifications (features/notifications): the path's device is nobody's ---
  notificationSettings: () => ({}),
  updateNotificationPreferences: () => ({ body: DEFAULT_NOTIFICATION_PREFERENCES }),
  addPushDevice: () => ({ body: { ...newPushSubscription('http://127.0.0.1:9'), deviceLabel: 'Matrix browser' } }),
  removePushDevice: () => ({ ok: 404 }),
  pushDeviceFocus: () => ({ body: { focused: true }, ok: 404 }),
};

describe('authorization matrix (derived from each endpoint access rule)', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  async function world(): Promise<World> {
    const [owner, party, stranger, someone, moderator, admin] = await Promise.all([
      server.login(),
      server.login(),
      server.login(),
      server.login(),
      server.login(),
      server.login(),
    ]);
    await sql(em, `update users set role = case when id = ? then 'moderator' else 'admin' end where id in (?, ?)`, [
      moderator.user.id,
      moderator.user.id,
      admin.user.id,
    ]);
    const like = (from: LoginResponse, to: number) =>
      server.call('POST', '/api/matches', {
        token: from.token,
        body: { user1Id: from.user.id, user2Id: to, intent: 'romantic', user1Liked: true },
      });
    await shareAShow([
      [owner.user, party.user],
      [owner.user, someone.user],
    ]);
    await like(owner, party.user.id);
    const matchId = (await like(party, owner.user.id)).json.id as number;
    const [podcast] = await sql<{ id: number }>(
      em,
      `insert into podcasts (name, created_at) values (?, now()) returning id`,
      [uniqueName('matrix-show')],
    );
    const [otherPodcast] = await sql<{ id: number }>(
      em,
      `insert into podcasts (name, created_at) values (?, now()) returning id`,
      [uniqueName('matrix-show')],
    );
    const [entry] = await sql<{ id: number }>(
      em,
      `insert into user_podcasts (user_id, podcast_id, source, times_listened, hidden, created_at)
       values (?, ?, 'manual', 0, false, now()) returning id`,
      [owner.user.id, otherPodcast?.id],
    );
    const projectId = randomUUID();
    await sql(
      em,
      `insert into video_intros (id, user_id, intent, source, status) values (?, ?, 'romantic', 'generated', 'queued')`,
      [projectId, owner.user.id],
    );
    const reported = await server.call('POST', '/api/reports', {
      token: owner.token,
      body: { reportedId: someone.user.id, reason: 'spam' },
    });
    expect(reported.status).toBe(201);
    return {
      owner,
      party,
      stranger,
      someone,
      moderator,
      admin,
      matchId,
      entryId: entry!.id,
      podcastId: podcast!.id,
      projectId,
    };
  }

  /**
   * The six roles' calls of one endpoint share a world (each role is a different person); an
   * endpoint whose success changes what another role's call meets gets a world per call.
   */
  const WORLD_PER_CALL = new Set<keyof Api>(['unmatch', 'moderationClaim', 'moderationAct']);
  let shared: { name: keyof Api; world: Promise<World> } | undefined;
  const worldFor = (name: keyof Api): Promise<World> => {
    if (WORLD_PER_CALL.has(name)) return world();
    if (shared?.name !== name) shared = { name, world: world() };
    return shared.world;
  };

  it('covers every endpoint (the samples table is typed by the API, so a new endpoint needs a row)', () => {
    expect(Object.keys(samples).sort()).toEqual(Object.keys(api).sort());
  });

  for (const [name, endpoint] of Object.entries(api) as [keyof Api, Api[keyof Api]][]) {
    for (const role of ROLES) {
      const expected = EXPECTED[endpoint.access][role];
      it(`${name} (${endpoint.access}): ${endpoint.method} ${endpoint.path} as ${role} -> ${expected}`, async () => {
        const w = await worldFor(name);
        const caller = role === 'anonymous' ? undefined : w[role];
        // A path's user is the owner for the rules about the owner; otherwise the caller's own.
        const pathUser = endpoint.access === 'owner' || endpoint.access === 'viewer' ? w.owner : (caller ?? w.owner);
        const sample = samples[name](w, caller);
        const path = buildPath(
          endpoint.path,
          // wayId: an identity id nobody in this world holds.
          {
            userId: pathUser.user.id,
            matchId: w.matchId,
            id: w.entryId,
            projectId: w.projectId,
            wayId: 2_000_000_000,
            subjectId: w.someone.user.id,
            appealId: 2_000_000_000,
            noticeId: 2_000_000_000,
            deviceId: 2_000_000_000,
          },
          sample.query,
        );
        const res = await server.call(endpoint.method, path, {
          token: caller?.token,
          body: sample.body,
          form: sample.form,
        });
        const ok = [sample.ok ?? endpoint.status].flat();
        if (expected === 'ok') expect(ok, `${res.status} ${res.text}`).toContain(res.status);
        else expect(res.status, res.text).toBe(expected);
        if (expected !== 'ok') expect(res.json?.message).toEqual(expect.any(String));
      });
    }
  }
});
