import type { EntityManager } from '@mikro-orm/postgresql';
import type { BadgeCounts, Intent, MatchView } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeUser } from '../../core/matching/precompute';
import { FIXTURE_SCORE, shareAShow } from '../../test/feed-fixture';
import {
  collectEvents,
  drainEvents,
  nextEvent,
  startTestServer,
  type TestServer,
  uniqueName,
} from '../../test/harness';

type Person = { token: string; id: number };

describe('matches', () => {
  let server: TestServer;
  let em: EntityManager;
  beforeAll(async () => {
    server = await startTestServer();
    em = server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  const exec = (sql: string, params: unknown[] = []) => em.getConnection().execute(sql, params, 'all');

  async function person(): Promise<Person> {
    const login = await server.login();
    return { token: login.token, id: login.user.id };
  }

  /** Two people sharing fresh shows, so each is in the other's feed. */
  async function pair(): Promise<[Person, Person]> {
    const a = await person();
    const b = await person();
    for (let i = 0; i < 3; i++) {
      const [row] = await exec(
        `insert into podcasts (name, creator, category, categories, created_at) values (?, 'Host', 'Comedy', '{Comedy}'::text[], now()) returning id`,
        [uniqueName('show')],
      );
      for (const p of [a, b]) {
        await exec(
          'insert into user_podcasts (user_id, podcast_id, hidden, times_listened, episode_count) values (?, ?, false, 3, 5)',
          [p.id, row?.id],
        );
      }
    }
    await recomputeUser(em.fork() as EntityManager, a.id);
    await recomputeUser(em.fork() as EntityManager, b.id);
    return [a, b];
  }

  /** Two fresh people in each other's feeds (the fixture's shared show, without a recompute). */
  async function inFeeds(): Promise<[Person, Person]> {
    const people: [Person, Person] = [await person(), await person()];
    await shareAShow([people]);
    return people;
  }

  const decide = (from: Person, to: number, liked: boolean, intent: Intent = 'romantic', extra = {}) =>
    server.call('POST', '/api/matches', {
      token: from.token,
      body: { user1Id: from.id, user2Id: to, intent, user1Liked: liked, ...extra },
    });
  const feedIds = async (p: Person, intent: Intent = 'romantic') =>
    (await server.call('GET', `/api/users/${p.id}/feed?intent=${intent}`, { token: p.token })).json.map(
      (item: { id: number }) => item.id,
    );
  const matches = async (p: Person, intent: Intent = 'romantic') =>
    (await server.call('GET', `/api/users/${p.id}/matches?intent=${intent}`, { token: p.token })).json as MatchView[];

  async function mutual(): Promise<[Person, Person, number]> {
    const [a, b] = await pair();
    await decide(a, b.id, true);
    const res = await decide(b, a.id, true);
    expect(res.json.isMutualMatch).toBe(true);
    return [a, b, res.json.id];
  }

  it('records a like without a mutual match, server-scored, from the caller side', async () => {
    const [a, b] = await pair();
    expect(await feedIds(a)).toContain(b.id);
    const res = await decide(a, b.id, true, 'romantic', { matchPercentage: 1, user2Liked: true });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ user1Id: a.id, user2Id: b.id, user1Liked: true, user2Liked: false });
    expect(res.json.isMutualMatch).toBe(false);
    expect(res.json.matchPercentage).toBeGreaterThan(1);
    expect(res.json.matchedUser.id).toBe(b.id);
    expect(res.json.matchedUser).not.toHaveProperty('username');
    expect(await feedIds(a)).not.toContain(b.id);
    expect(await feedIds(b)).toContain(a.id);
    expect(await matches(a)).toEqual([]);
  });

  it('records a pass: no mutual even if the other likes, and the card leaves the feed', async () => {
    const [a, b] = await pair();
    const pass = await decide(a, b.id, false);
    expect(pass.json).toMatchObject({ user1Liked: false, isMutualMatch: false });
    expect(await feedIds(a)).not.toContain(b.id);
    const like = await decide(b, a.id, true);
    expect(like.json.isMutualMatch).toBe(false);
    expect(await matches(b)).toEqual([]);
  });

  it('refuses acting for someone else, yourself, bad intents and unknown people', async () => {
    const [a, b] = await pair();
    const c = await person();
    const forOther = await server.call('POST', '/api/matches', {
      token: c.token,
      body: { user1Id: a.id, user2Id: b.id, intent: 'romantic', user1Liked: true },
    });
    expect(forOther.status).toBe(403);
    expect((await decide(a, a.id, true)).status).toBe(400);
    expect((await decide(a, b.id, true, 'nope' as Intent)).status).toBe(400);
    expect((await decide(a, 2_000_000_000, true)).status).toBe(404);
    const [row] = await exec('select count(*)::int as n from matches where user1_id = ? or user2_id = ?', [a.id, a.id]);
    expect(row?.n).toBe(0);
  });

  it('a like or a pass is no profile oracle: only people the caller may see, on either instance', async () => {
    const other = await startTestServer();
    try {
      const [viewer, visible] = await inFeeds();
      // Strangers active in every intent with a profile to steal, but not in the viewer's feed.
      const strangers = [await person(), await person(), await person()];
      for (const s of strangers) {
        await server.call('PUT', `/api/users/${s.id}`, {
          token: s.token,
          body: { displayName: 'Private Person', romanticTagline: 'Secret tagline' },
        });
      }
      // Someone who liked the viewer but is below the viewer's minimum match %: a pass on them must
      // not tell the viewer they did.
      const [admirer] = [await person()];
      await shareAShow([[viewer, admirer]]);
      expect((await decide(admirer, viewer.id, true)).status).toBe(200);
      const prefs = await server.call('PUT', `/api/users/${viewer.id}`, {
        token: viewer.token,
        body: { matchPreferences: { minMatchPercentage: FIXTURE_SCORE + 5 } },
      });
      expect(prefs.status).toBe(200);
      await exec('update feed_candidates set score = ? where user_id = ? and candidate_id = ?', [
        FIXTURE_SCORE - 10,
        viewer.id,
        admirer.id,
      ]);
      await exec('update feed_candidates set score = ? where user_id = ? and candidate_id = ?', [
        FIXTURE_SCORE + 10,
        viewer.id,
        visible.id,
      ]);

      const unknown = await decide(viewer, 2_000_000_000, true);
      expect(unknown.status).toBe(404);
      const targets = [...strangers.map((s) => s.id), admirer.id];
      const instances = [server, other];
      const answers = await Promise.all(
        targets.flatMap((id, i) =>
          (['romantic', 'platonic', 'professional'] as const).flatMap((intent, k) =>
            [true, false].map((liked, l) =>
              instances[(i + k + l) % 2]?.call('POST', '/api/matches', {
                token: viewer.token,
                body: { user1Id: viewer.id, user2Id: id, intent, user1Liked: liked },
              }),
            ),
          ),
        ),
      );
      for (const res of answers) {
        expect(res?.status, res?.text).toBe(404);
        // The very same answer as an id nobody has: nothing to tell them apart.
        expect(res?.text).toBe(unknown.text);
      }
      const rows = await exec('select user1_id, user2_id from matches where ? in (user1_id, user2_id)', [viewer.id]);
      expect(rows).toEqual([{ user1_id: Math.min(viewer.id, admirer.id), user2_id: Math.max(viewer.id, admirer.id) }]);
      const [admirerRow] = await exec('select * from matches where user1_id = ? and user2_id = ?', [
        Math.min(viewer.id, admirer.id),
        Math.max(viewer.id, admirer.id),
      ]);
      expect(admirerRow?.[viewer.id < admirer.id ? 'user1_acted' : 'user2_acted']).toBe(false);

      // Someone in the feed: a like answers with what the feed card already showed, on either instance.
      const card = (
        (await server.call('GET', `/api/users/${viewer.id}/feed?intent=romantic`, { token: viewer.token })).json as {
          id: number;
          displayName: string;
          profilePicture: string | null;
          tagline: string | null;
        }[]
      ).find((item) => item.id === visible.id);
      expect(card).toBeTruthy();
      const liked = await other.call('POST', '/api/matches', {
        token: viewer.token,
        body: { user1Id: viewer.id, user2Id: visible.id, intent: 'romantic', user1Liked: true },
      });
      expect(liked.status).toBe(200);
      expect(liked.json.matchedUser).toMatchObject({
        id: card?.id,
        displayName: card?.displayName,
        profilePicture: card?.profilePicture,
        tagline: card?.tagline,
      });
      // Out of the feed now (decided), yet the caller's own decision may be repeated or changed.
      expect(await feedIds(viewer)).not.toContain(visible.id);
      expect((await decide(viewer, visible.id, true)).status).toBe(200);
      // And the other side likes back: a current match may be liked again.
      expect((await decide(visible, viewer.id, true)).json.isMutualMatch).toBe(true);
      expect((await decide(visible, viewer.id, true)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('makes a mutual match on the second like and tells both people in every tab', async () => {
    const [a, b] = await pair();
    const [a1, a2, b1] = [await server.socket(a.token), await server.socket(a.token), await server.socket(b.token)];
    const events = [nextEvent(a1, 'match:new'), nextEvent(a2, 'match:new'), nextEvent(b1, 'match:new')] as const;
    const badges = nextEvent(b1, 'badges:update', (c) => c.unreadMatches.romantic === 1);
    await decide(a, b.id, true);
    const res = await decide(b, a.id, true);
    expect(res.json).toMatchObject({ isMutualMatch: true, user1Id: b.id, user2Id: a.id, hasUnreadMessages: true });
    const [[ea1], [ea2], [eb1]] = await Promise.all(events);
    expect(ea1.matchedUser.id).toBe(b.id);
    expect(ea2.id).toBe(res.json.id);
    expect(eb1.matchedUser.id).toBe(a.id);
    await badges;
    expect((await matches(a)).map((m) => m.id)).toEqual([res.json.id]);
    const single = await server.call('GET', `/api/matches/${res.json.id}`, { token: a.token });
    expect(single.json).toMatchObject({ user1Id: a.id, user2Id: b.id, isMutualMatch: true });
    const viaUser = await server.call('GET', `/api/users/${a.id}/matches/${res.json.id}`, { token: a.token });
    expect(viaUser.status).toBe(200);
    const stranger = await person();
    expect((await server.call('GET', `/api/matches/${res.json.id}`, { token: stranger.token })).status).toBe(404);
    expect(
      (await server.call('GET', `/api/users/${stranger.id}/matches/${res.json.id}`, { token: stranger.token })).status,
    ).toBe(404);
  });

  it('two simultaneous likes from both sides give exactly one mutual match, announced once', async () => {
    for (let round = 0; round < 25; round++) {
      const [a, b] = await inFeeds();
      const [sa, sb] = [await server.socket(a.token), await server.socket(b.token)];
      const seenA = collectEvents(sa, 'match:new');
      const seenB = collectEvents(sb, 'match:new');
      const [ra, rb] = await Promise.all([decide(a, b.id, true), decide(b, a.id, true)]);
      expect([ra.status, rb.status]).toEqual([200, 200]);
      expect(ra.json.id).toBe(rb.json.id);
      // At least the later of the two sees the match as mutual.
      expect(ra.json.isMutualMatch || rb.json.isMutualMatch).toBe(true);
      const rows = await exec('select mutual_at from matches where user1_id = ? and user2_id = ?', [
        Math.min(a.id, b.id),
        Math.max(a.id, b.id),
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.mutual_at).not.toBeNull();
      await Promise.all([drainEvents(server, sa, a), drainEvents(server, sb, b)]);
      expect(seenA).toHaveLength(1);
      expect(seenB).toHaveLength(1);
      sa.disconnect();
      sb.disconnect();
    }
  }, 120_000);

  it('keeps a like that is not mutual invisible to the person liked (and to the liker)', async () => {
    const [a, b] = await pair();
    const like = await decide(a, b.id, true);
    expect(like.status).toBe(200);
    const id = like.json.id as number;
    for (const p of [b, a]) {
      expect((await server.call('GET', `/api/matches/${id}`, { token: p.token })).status).toBe(404);
      expect((await server.call('GET', `/api/users/${p.id}/matches/${id}`, { token: p.token })).status).toBe(404);
      const fav = await server.call('PUT', `/api/matches/${id}`, { token: p.token, body: { isFavorite: true } });
      expect(fav.status).toBe(404);
      expect((await server.call('POST', `/api/matches/${id}/seen`, { token: p.token })).status).toBe(404);
      expect((await server.call('DELETE', `/api/matches/${id}`, { token: p.token })).status).toBe(404);
      expect(await matches(p)).toEqual([]);
    }
    // Walking serial ids finds nothing either: every non-mutual row answers like a missing one.
    for (let k = Math.max(1, id - 20); k <= id + 20; k++) {
      const res = await server.call('GET', `/api/matches/${k}`, { token: b.token });
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: 'not_found', message: 'Match not found.' });
    }
    // A pass on someone who liked you does not reveal that they did.
    const pass = await decide(b, a.id, false);
    expect(pass.json).toMatchObject({ isMutualMatch: false, user1Liked: false, user2Liked: false });
    const [row] = await exec('select user1_liked, user2_liked, mutual_at from matches where id = ?', [id]);
    expect([row?.user1_liked, row?.user2_liked].sort()).toEqual([false, true]);
    expect(row?.mutual_at).toBeNull();
  });

  it('answers a like or pass on someone inactive in that intent, unknown or blocked with 404', async () => {
    const [a, b] = await pair();
    await exec(`update user_profiles set active = false where user_id = ? and intent = 'platonic'`, [b.id]);
    const inactive = [await decide(a, b.id, true, 'platonic'), await decide(a, b.id, false, 'platonic')];
    expect(inactive.map((r) => r.status)).toEqual([404, 404]);
    expect(inactive[0]?.json.message).toBe('User not found.');
    expect((await decide(a, b.id, true, 'romantic')).status).toBe(200);
    expect((await decide(a, 2_000_000_000, false)).status).toBe(404);
    const c = await person();
    await server.call('POST', '/api/blocks', { token: c.token, body: { userId: a.id } });
    expect((await decide(a, c.id, true)).status).toBe(404);
    expect((await decide(c, a.id, true)).status).toBe(404);
    const rows = await exec(`select intent from matches where user1_id = ? or user2_id = ?`, [a.id, a.id]);
    expect(rows.map((r) => r.intent)).toEqual(['romantic']);
  });

  it('a block racing a like never leaves the blocked person with a match (nor a match:new as the last word)', async () => {
    for (let round = 0; round < 15; round++) {
      const [a, b] = await inFeeds();
      expect((await decide(a, b.id, true)).status).toBe(200);
      const [sa, sb] = [await server.socket(a.token), await server.socket(b.token)];
      const logs = [sa, sb].map((socket) => {
        const log: string[] = [];
        socket.on('match:new', () => log.push('new'));
        socket.on('match:removed', () => log.push('removed'));
        return log;
      });
      // b likes a back (which would make the pair mutual) while a blocks b.
      const [like, blocked] = await Promise.all([
        decide(b, a.id, true),
        server.call('POST', '/api/blocks', { token: a.token, body: { userId: b.id } }),
      ]);
      expect([200, 404]).toContain(like.status);
      expect(blocked.status).toBe(200);
      await Promise.all([drainEvents(server, sa, a), drainEvents(server, sb, b)]);
      for (const log of logs) {
        if (like.status === 404) expect(log).toEqual([]);
        if (log.includes('new')) expect(log.at(-1)).toBe('removed');
      }
      expect(await matches(a)).toEqual([]);
      expect(await matches(b)).toEqual([]);
      expect((await server.call('GET', `/api/users/${a.id}`, { token: b.token })).status).toBe(404);
      sa.disconnect();
      sb.disconnect();
    }
  }, 120_000);

  it('keeps favourites per user, owner only, favourites first', async () => {
    const [a, b, id] = await mutual();
    const c = await person();
    await exec(
      `insert into user_podcasts (user_id, podcast_id, hidden, times_listened, episode_count)
       select ?, podcast_id, false, 3, 5 from user_podcasts where user_id = ?`,
      [c.id, a.id],
    );
    await recomputeUser(em.fork() as EntityManager, c.id);
    await decide(c, a.id, true);
    expect((await decide(a, c.id, true)).json.isMutualMatch).toBe(true);
    const fav = await server.call('PUT', `/api/matches/${id}`, { token: a.token, body: { isFavorite: true } });
    expect(fav.json.isFavorite).toBe(true);
    expect((await matches(a))[0]?.id).toBe(id);
    expect((await matches(b)).find((m) => m.id === id)?.isFavorite).toBe(false);
    const stranger = await person();
    const refused = await server.call('PUT', `/api/matches/${id}`, {
      token: stranger.token,
      body: { isFavorite: true },
    });
    expect(refused.status).toBe(404);
    const bad = await server.call('PUT', `/api/matches/${id}`, { token: a.token, body: { isFavorite: 'yes' } });
    expect(bad.status).toBe(400);
  });

  it('marks a match seen, clearing the unread badge', async () => {
    const [a, b, id] = await mutual();
    const stranger = await person();
    expect((await server.call('POST', `/api/matches/${id}/seen`, { token: stranger.token })).status).toBe(404);
    const socket = await server.socket(a.token);
    const cleared = nextEvent(socket, 'badges:update', (c) => c.unreadMatches.romantic === 0);
    const res = await server.call('POST', `/api/matches/${id}/seen`, { token: a.token });
    expect(res.json.hasUnreadMessages).toBe(false);
    await cleared;
    expect((await matches(b))[0]?.hasUnreadMessages).toBe(true);
  });

  it('answers the same badges over REST (the polling fallback) as the socket pushes, owner only', async () => {
    const [a, b] = await mutual();
    const res = await server.call('GET', `/api/users/${a.id}/badges`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.json.unreadMatches).toEqual({ romantic: 1, platonic: 0, professional: 0 });
    expect(Object.keys(res.json.feed).sort()).toEqual(['platonic', 'professional', 'romantic']);
    expect((await server.call('GET', `/api/users/${a.id}/badges`, { token: b.token })).status).toBe(403);
  });

  it('pushes badges when a socket connects', async () => {
    const [a] = await mutual();
    const socket = await server.socket(a.token);
    const [counts] = (await nextEvent(socket, 'badges:update')) as [BadgeCounts];
    expect(counts.unreadMatches.romantic).toBe(1);
    expect(Object.keys(counts.feed).sort()).toEqual(['platonic', 'professional', 'romantic']);
  });

  it('unmatches for both people; a stranger cannot', async () => {
    const [a, b, id] = await mutual();
    const stranger = await person();
    expect((await server.call('DELETE', `/api/matches/${id}`, { token: stranger.token })).status).toBe(404);
    const sb = await server.socket(b.token);
    const gone = nextEvent(sb, 'match:removed', (e) => e.matchId === id);
    expect((await server.call('DELETE', `/api/matches/${id}`, { token: a.token })).status).toBe(200);
    await gone;
    expect(await matches(a)).toEqual([]);
    expect(await matches(b)).toEqual([]);
    expect(await feedIds(a)).not.toContain(b.id);
    expect(await feedIds(b)).not.toContain(a.id);
    expect((await decide(a, b.id, true)).status).toBe(409);
  });

  it('block hides both people from each other everywhere', async () => {
    const [a, b, id] = await mutual();
    const [c, d] = await pair();
    expect((await server.call('POST', '/api/blocks', { token: a.token, body: { userId: a.id } })).status).toBe(400);
    expect((await server.call('POST', '/api/blocks', { token: a.token, body: { userId: 2_000_000_000 } })).status).toBe(
      404,
    );
    const sb = await server.socket(b.token);
    const gone = nextEvent(sb, 'match:removed', (e) => e.matchId === id);
    expect((await server.call('POST', '/api/blocks', { token: a.token, body: { userId: b.id } })).status).toBe(200);
    await gone;
    expect(await matches(a)).toEqual([]);
    expect(await matches(b)).toEqual([]);
    for (const p of [a, b]) {
      expect((await server.call('GET', `/api/matches/${id}`, { token: p.token })).status).toBe(404);
      expect(
        (await server.call('PUT', `/api/matches/${id}`, { token: p.token, body: { isFavorite: true } })).status,
      ).toBe(404);
    }
    expect(await feedIds(b)).not.toContain(a.id);
    expect((await decide(b, a.id, true, 'platonic')).status).toBe(404);
    expect((await server.call('GET', `/api/users/${a.id}`, { token: b.token })).status).toBe(404);
    expect((await server.call('GET', `/api/users/${b.id}`, { token: a.token })).status).toBe(404);
    // c shares shows with a but has never seen them in a feed of theirs, nor matched: a stays hidden.
    expect((await server.call('GET', `/api/users/${a.id}`, { token: c.token })).status).toBe(404);
    // Blocking only ever concerns the caller: c blocking d leaves a and b's state alone.
    await server.call('POST', '/api/blocks', { token: c.token, body: { userId: d.id } });
    expect(await feedIds(d)).not.toContain(c.id);
  });

  it('stores a report with its reason; refuses bad reasons, self and other people’s matches', async () => {
    const [a, b, id] = await mutual();
    const stranger = await person();
    const ok = await server.call('POST', '/api/reports', {
      token: a.token,
      body: { reportedId: b.id, matchId: id, reason: 'harassment', details: 'rude' },
    });
    expect(ok.status).toBe(201);
    const [row] = await exec('select * from reports where reporter_id = ?', [a.id]);
    expect(row).toMatchObject({ reported_id: b.id, match_id: id, reason: 'harassment', details: 'rude' });
    const bad = await server.call('POST', '/api/reports', {
      token: a.token,
      body: { reportedId: b.id, reason: 'meh' },
    });
    expect(bad.status).toBe(400);
    const long = await server.call('POST', '/api/reports', {
      token: a.token,
      body: { reportedId: b.id, reason: 'other', details: 'x'.repeat(1001) },
    });
    expect(long.status).toBe(400);
    const self = await server.call('POST', '/api/reports', {
      token: a.token,
      body: { reportedId: a.id, reason: 'spam' },
    });
    expect(self.status).toBe(400);
    const notParty = await server.call('POST', '/api/reports', {
      token: stranger.token,
      body: { reportedId: b.id, matchId: id, reason: 'spam' },
    });
    expect(notParty.status).toBe(404);
    // Nobody reports someone they never came across (not in their feed, no match, no block).
    const unseen = await server.call('POST', '/api/reports', {
      token: stranger.token,
      body: { reportedId: b.id, reason: 'spam' },
    });
    expect(unseen.status).toBe(404);
    expect(unseen.text).toBe(
      (
        await server.call('POST', '/api/reports', {
          token: stranger.token,
          body: { reportedId: 2_000_000_000, reason: 'spam' },
        })
      ).text,
    );
    // Once blocked, still reportable.
    await server.call('POST', '/api/blocks', { token: stranger.token, body: { userId: b.id } });
    const afterBlock = await server.call('POST', '/api/reports', {
      token: stranger.token,
      body: { reportedId: b.id, reason: 'spam' },
    });
    expect(afterBlock.status).toBe(201);
  });

  it('a report outlives both accounts: the reported id, name and messages stay; deleting and signing up again wipes nothing', async () => {
    const [a, b, matchId] = await mutual();
    await server.call('PUT', `/api/users/${b.id}`, { token: b.token, body: { displayName: 'Harasser Name' } });
    const send = (from: Person, content: string) =>
      server.call('POST', '/api/chat', {
        token: from.token,
        body: { matchId, senderId: from.id, content, clientId: crypto.randomUUID() },
      });
    expect((await send(b, 'first threat')).status).toBe(201);
    expect((await send(a, 'please stop')).status).toBe(201);
    expect((await send(b, 'second threat')).status).toBe(201);
    const reported = await server.call('POST', '/api/reports', {
      token: a.token,
      body: { reportedId: b.id, matchId, reason: 'harassment', details: 'threats' },
    });
    expect(reported.status).toBe(201);
    // Messages sent after the report are not part of it.
    expect((await send(b, 'after the report')).status).toBe(201);

    const evidence = async () =>
      exec(
        `select r.reporter_id, r.reported_id, r.reported_display_name, r.reason, r.details,
                array(select content from report_messages rm where rm.report_id = r.id order by rm.seq) as messages
           from reports r where r.reported_id = ?`,
        [b.id],
      );
    const expected = {
      reported_id: b.id,
      reported_display_name: 'Harasser Name',
      reason: 'harassment',
      details: 'threats',
      messages: ['first threat', 'second threat'],
    };
    expect(await evidence()).toEqual([{ reporter_id: a.id, ...expected }]);

    // The harasser deletes their account (their messages go with it) and signs up again by the same name.
    const [{ username } = { username: '' }] = (await exec('select username from users where id = ?', [b.id])) as {
      username: string;
    }[];
    const gone = await server.call('DELETE', `/api/users/${b.id}`, { token: b.token, body: { confirm: 'DELETE' } });
    expect(gone.status).toBe(200);
    expect(await exec('select 1 from messages where match_id = ?', [matchId])).toEqual([]);
    const again = await server.login(username);
    expect(again.user.id).not.toBe(b.id);
    expect(await evidence()).toEqual([{ reporter_id: a.id, ...expected }]);
    // The reporter deletes theirs too: the report stays, without them.
    expect(
      (await server.call('DELETE', `/api/users/${a.id}`, { token: a.token, body: { confirm: 'DELETE' } })).status,
    ).toBe(200);
    expect(await evidence()).toEqual([{ reporter_id: null, ...expected }]);
  });

  it('keeps one report per reporter and person, however often and however simultaneously they report', async () => {
    // 30 reporters x 4 simultaneous reports about the same 2 people: far above the database pool.
    const targets = [await person(), await person()];
    const reporters = await Promise.all(Array.from({ length: 30 }, () => person()));
    await shareAShow(reporters.flatMap((r) => targets.map((t) => [r, t] as [Person, Person])));
    const results = await Promise.all(
      reporters.flatMap((r) =>
        targets.flatMap((t) =>
          ['spam', 'harassment'].map((reason) =>
            server.call('POST', '/api/reports', { token: r.token, body: { reportedId: t.id, reason } }),
          ),
        ),
      ),
    );
    expect(results.filter((res) => res.status !== 201).map((res) => `${res.status} ${res.text}`)).toEqual([]);
    for (const t of targets) {
      const rows = await exec('select reporter_id from reports where reported_id = ?', [t.id]);
      expect(rows).toHaveLength(30);
      expect(new Set(rows.map((row) => row.reporter_id)).size).toBe(30);
    }
  });

  it('lists only the owner’s matches, best first', async () => {
    const [a, b] = await mutual();
    expect((await server.call('GET', `/api/users/${a.id}/matches`, { token: b.token })).status).toBe(403);
    expect((await server.call('GET', `/api/users/${a.id}/matches?intent=x`, { token: a.token })).status).toBe(400);
    expect((await matches(a, 'platonic')).length).toBe(0);
  });
  it('lists the newest conversation first (favourites before the rest), each with its last message', async () => {
    const [a, b, ab] = await mutual();
    const c = await person();
    await shareAShow([[a, c]]);
    await recomputeUser(em.fork() as EntityManager, a.id);
    await recomputeUser(em.fork() as EntityManager, c.id);
    await decide(a, c.id, true);
    const ac = (await decide(c, a.id, true)).json.id as number;
    const send = (from: Person, matchId: number, content: string) =>
      server.call('POST', '/api/chat', { token: from.token, body: { matchId, senderId: from.id, content } });

    // No messages yet: the newest match first, no last message.
    let list = await matches(a);
    expect(list.map((m) => m.id)).toEqual([ac, ab]);
    expect(list.every((m) => m.lastMessage === null)).toBe(true);

    expect((await send(b, ab, 'Hi there! '.repeat(20))).status).toBe(201);
    list = await matches(a);
    expect(list.map((m) => m.id)).toEqual([ab, ac]);
    expect(list[0]?.lastMessage).toMatchObject({ senderId: b.id, text: 'Hi there! '.repeat(12) });
    expect(list[0]?.lastMessageSeq).toBe(1);
    expect(list[0]?.hasUnreadMessages).toBe(true);

    expect((await send(c, ac, 'Hello from c')).status).toBe(201);
    expect((await matches(a)).map((m) => m.id)).toEqual([ac, ab]);
    // A favourite comes first, whatever its last message.
    await server.call('PUT', `/api/matches/${ab}`, { token: a.token, body: { isFavorite: true } });
    list = await matches(a);
    expect(list.map((m) => m.id)).toEqual([ab, ac]);
    expect(list[1]?.lastMessage?.text).toBe('Hello from c');
    // The other side sees the same last message, written by the other person.
    expect((await matches(b))[0]?.lastMessage?.senderId).toBe(b.id);
  });

  const undo = (from: Person, to: number, intent: Intent = 'romantic') =>
    server.call('POST', '/api/matches/undo-pass', { token: from.token, body: { userId: to, intent } });
  const rowOf = async (x: number, y: number) =>
    (
      await exec('select * from matches where user1_id = ? and user2_id = ? and intent = ?', [
        Math.min(x, y),
        Math.max(x, y),
        'romantic',
      ])
    )[0];

  // Undo the last pass (issue 10, item 10; docs/matches.md, "Undo the last pass").
  it('takes back your own last pass: the person is in your feed again, not acted, not liked', async () => {
    const [a, b] = await pair();
    expect((await decide(a, b.id, false)).status).toBe(200);
    expect(await feedIds(a)).not.toContain(b.id);
    const res = await undo(a, b.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(await feedIds(a)).toContain(b.id);
    const row = await rowOf(a.id, b.id);
    const side = row?.user1_id === a.id ? 1 : 2;
    expect(row?.[`user${side}_acted`]).toBe(false);
    expect(row?.[`user${side}_liked`]).toBe(false);
    // Once: a second undo has nothing to take back.
    expect((await undo(a, b.id)).status).toBe(404);
    // And a like afterwards works as usual.
    expect((await decide(a, b.id, true)).json.user1Liked).toBe(true);
  });

  it('takes back a pass that a recompute ran during: the person is stored again and in the feed', async () => {
    const [a, b] = await pair();
    // b is there for romance only (like most demo people), so a's pass leaves nothing pending with b.
    await exec(`update user_profiles set active = false where user_id = ? and intent <> 'romantic'`, [b.id]);
    await recomputeUser(em.fork() as EntityManager, a.id);
    expect((await decide(a, b.id, false)).status).toBe(200);
    // The recompute after a library change, while the pass stood: nothing pending with b in any intent.
    await recomputeUser(em.fork() as EntityManager, a.id);
    expect(await exec('select 1 from feed_candidates where user_id = ? and candidate_id = ?', [a.id, b.id])).toEqual(
      [],
    );
    expect((await undo(a, b.id)).status).toBe(200);
    expect(await feedIds(a)).toContain(b.id);
  });

  it("refuses a like, an older pass, someone else's pass, another intent and strangers", async () => {
    const [a, b] = await pair();
    const [c, d] = [await person(), await person()];
    await decide(a, b.id, true);
    expect((await undo(a, b.id)).status).toBe(404);
    const [ab] = [await rowOf(a.id, b.id)];
    expect(ab?.[`user${ab?.user1_id === a.id ? 1 : 2}_liked`]).toBe(true);

    await decide(a, c.id, false);
    await decide(a, d.id, false);
    expect((await undo(a, c.id)).status).toBe(404); // not the most recent
    expect((await undo(a, d.id, 'platonic')).status).toBe(404); // not in that intent
    expect((await undo(b, d.id)).status).toBe(404); // b never passed d
    expect((await undo(d, a.id)).status).toBe(404); // a's pass is not d's
    expect(await feedIds(a)).not.toContain(c.id);
    // A pass that has become a like in the meantime is not a pass any more.
    await decide(a, d.id, true);
    expect((await undo(a, d.id)).status).toBe(404);
    expect((await undo(a, 2_000_000_000)).status).toBe(404);
    const bad = await server.call('POST', '/api/matches/undo-pass', { token: a.token, body: { userId: 'x' } });
    expect(bad.status).toBe(400);
    expect(
      (await server.call('POST', '/api/matches/undo-pass', { body: { userId: b.id, intent: 'romantic' } })).status,
    ).toBe(401);
  });

  it('many undos, passes and likes at once across many pairs: no 5xx, consistent rows', async () => {
    const PAIRS = 40; // four times the pool of 10, each pair with several requests in flight
    const pairs: [Person, Person][] = [];
    for (let i = 0; i < PAIRS; i++) pairs.push([await person(), await person()]);
    await shareAShow(pairs);
    await Promise.all(pairs.map(([a, b]) => decide(a, b.id, false)));
    const answers = await Promise.all(
      pairs.flatMap(([a, b], i) => [
        undo(a, b.id),
        undo(a, b.id),
        i % 2 === 0 ? decide(a, b.id, true) : decide(a, b.id, false),
        decide(b, a.id, true),
        undo(b, a.id),
      ]),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s === 200 || s === 404)).toBe(true);
    for (const [a, b] of pairs) {
      const rows = await exec('select * from matches where user1_id = ? and user2_id = ?', [
        Math.min(a.id, b.id),
        Math.max(a.id, b.id),
      ]);
      expect(rows).toHaveLength(1);
      const row = rows[0] as Record<string, unknown>;
      // A like is always an action; mutual only when both like.
      for (const side of [1, 2]) if (row[`user${side}_liked`]) expect(row[`user${side}_acted`]).toBe(true);
      expect(row.mutual_at !== null).toBe(row.user1_liked === true && row.user2_liked === true);
    }
    // At most one of the two undos of a pass took it back. Where the third request is a second pass,
    // an undo may take back that one in turn, when it lands between the two undos.
    for (let i = 0; i < PAIRS; i++) {
      const [u1, u2] = [answers[i * 5], answers[i * 5 + 1]];
      const passes = i % 2 === 0 ? 1 : 2;
      expect([u1?.status, u2?.status].filter((s) => s === 200).length).toBeLessThanOrEqual(passes);
    }
  }, 120_000);
});
