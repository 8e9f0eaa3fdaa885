import {
  PodcastEpisodeSchema,
  PodcastSchema,
  UserIdentitySchema,
  UserPodcastSchema,
  UserSchema,
} from '@server/core/db/entities';
import { createLogger } from '@server/core/logger';
import {
  collectEvents,
  nextEvent,
  startTestServer,
  type TestServer,
  type TestSocket,
  testEnv,
  uniqueName,
} from '@server/test/harness';
import { connectSpotify, freePort, spotifyLinkOf, spotifyServerEnv } from '@server/test/spotify-flow';
import { makeEpisode, makeShow, SpotifyStandIn, type StandInAccount } from '@server/test/spotify-stand-in';
import { jobErrorText } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkerConfig } from '../config';
import { type RunningWorker, startWorker } from '../worker';
import { listeningFigures } from './spotify-sync';

describe('listening figures from saved shows and episodes', () => {
  const show = { id: 's', name: 'S', total_episodes: 80 };
  const ep = (id: string, addedAt: string, fully: boolean, position: number) => ({
    added_at: addedAt,
    episode: {
      id,
      name: `Episode ${id}`,
      resume_point: { fully_played: fully, resume_position_ms: position },
      show,
    },
  });

  it('counts started or finished episodes and takes the latest of them', () => {
    const figures = listeningFigures({
      show,
      savedAt: new Date('2025-01-01T00:00:00Z'),
      episodes: [
        ep('a', '2026-01-01T00:00:00Z', true, 0),
        ep('b', '2026-03-01T00:00:00Z', false, 0),
        ep('c', '2026-02-01T00:00:00Z', false, 1000),
      ],
    });
    expect(figures).toEqual({
      episodeCount: 80,
      timesListened: 2,
      lastEpisode: 'Episode c',
      lastListened: new Date('2026-02-01T00:00:00Z'),
    });
  });

  it('falls back to saved episodes, then to when the show was saved', () => {
    const noTotal = { id: 's', name: 'S' };
    expect(
      listeningFigures({
        show: noTotal,
        savedAt: null,
        episodes: [
          {
            ...ep('b', '2026-03-01T00:00:00Z', false, 0),
            episode: { ...ep('b', '', false, 0).episode, show: noTotal },
          },
        ],
      }),
    ).toMatchObject({
      episodeCount: 1,
      timesListened: 0,
      lastEpisode: 'Episode b',
      lastListened: new Date('2026-03-01T00:00:00Z'),
    });
    expect(listeningFigures({ show, savedAt: new Date('2025-01-01T00:00:00Z'), episodes: [] })).toEqual({
      episodeCount: 80,
      timesListened: 0,
      lastEpisode: null,
      lastListened: new Date('2025-01-01T00:00:00Z'),
    });
  });
});

describe('Spotify connect -> podcasts.sync in the worker -> library, against the stand-in', () => {
  const standIn = new SpotifyStandIn();
  let server: TestServer;
  let worker: RunningWorker;

  beforeAll(async () => {
    await standIn.start();
    const port = await freePort();
    const env = spotifyServerEnv(standIn, port);
    // The sync handler reads SPOTIFY_* from the worker's environment, as in production.
    Object.assign(process.env, env);
    server = await startTestServer(env);
    worker = await startWorker(loadWorkerConfig(testEnv(env)), createLogger('worker', 'silent'));
  });
  afterAll(async () => {
    await worker?.close();
    await server?.close();
    await standIn.close();
  });

  const em = () => server.running.deps.orm.em.fork();

  /** A Spotify account with `showCount` saved shows and saved episodes, some of unsaved shows. */
  function account(showCount: number, episodeCount: number): StandInAccount {
    const id = uniqueName('sp');
    const shows = Array.from({ length: showCount }, (_, i) =>
      makeShow(`${id}show${i}`, `Show ${i} of ${id}`, { totalEpisodes: 10 + i }),
    );
    const unsaved = makeShow(`${id}unsaved`, `Unsaved show of ${id}`, { totalEpisodes: 7 });
    const episodes = Array.from({ length: episodeCount }, (_, i) =>
      makeEpisode(i % 10 === 9 ? unsaved : (shows[i % showCount] as (typeof shows)[number]), `${id}ep${i}`, {
        addedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().replace('.000', ''),
        resumePoint: { fully_played: i % 3 === 0, resume_position_ms: i % 3 === 1 ? 5000 : 0 },
      }),
    );
    const acc = standIn.addAccount({
      id,
      displayName: id,
      shows: shows.map((show, i) => ({ show, addedAt: new Date(Date.UTC(2025, 0, 1 + i)).toISOString() })),
      episodes,
    });
    standIn.signedInAs = id;
    return acc;
  }

  async function connected(acc: StandInAccount) {
    const me = await server.login();
    const socket = await server.socket(me.token);
    standIn.signedInAs = acc.id;
    const done = nextEvent(socket, 'job:status', (e) => e.name === 'podcasts.sync' && e.state !== 'active', 20_000);
    const { finish } = await connectSpotify(server.url, me.token);
    expect(finish?.status).toBe(200);
    const [event] = await done;
    return { me, socket, event };
  }

  async function sync(token: string, userId: number, socket: TestSocket) {
    const res = await server.call('POST', `/api/users/${userId}/spotify/sync`, { token });
    expect(res.status).toBe(202);
    const [event] = await nextEvent(
      socket,
      'job:status',
      (e) => e.jobId === res.json.jobId && (e.state === 'completed' || e.state === 'failed'),
      20_000,
    );
    return event;
  }

  it('reads every page of saved shows and episodes into the library, with progress to the owner only', async () => {
    const acc = account(120, 60);
    const before = standIn.requests.length;
    const bystander = await server.login();
    const bystanderSocket = await server.socket(bystander.token);
    const leaked = collectEvents(bystanderSocket, 'job:status');
    const { me, event } = await connected(acc);
    expect(event).toMatchObject({ state: 'completed', progress: 100 });

    const calls = standIn.requests.slice(before).filter((r) => r.path.startsWith('/v1/me/'));
    expect(calls.filter((r) => r.path === '/v1/me/shows')).toHaveLength(3); // 50 + 50 + 20
    expect(calls.filter((r) => r.path === '/v1/me/episodes')).toHaveLength(2); // 50 + 10

    const entries = await em().find(UserPodcastSchema, { userId: me.user.id }, { populate: ['podcastId'] });
    expect(entries).toHaveLength(121);
    expect(entries.every((e) => e.source === 'spotify' && !e.hidden)).toBe(true);

    const podcasts = await em().find(PodcastSchema, { spotifyId: { $in: [`${acc.id}show0`, `${acc.id}unsaved`] } });
    const show0 = podcasts.find((p) => p.spotifyId === `${acc.id}show0`);
    expect(show0).toMatchObject({
      name: `Show 0 of ${acc.id}`,
      creator: `Show 0 of ${acc.id} Publisher`,
      imageUrl: `https://i.scdn.co/image/${acc.id}show0`,
      description: `All about Show 0 of ${acc.id}.`,
    });
    // Show 0 has saved episodes 0, 120/.. -> i in {0} among 0..59 with i % 120 === 0 and i % 10 !== 9.
    const entry0 = entries.find((e) => e.podcastId === show0?.id);
    expect(entry0).toMatchObject({
      episodeCount: 10,
      timesListened: 1,
      lastEpisode: `Show 0 of ${acc.id} episode ${acc.id}ep0`,
    });
    const unsaved = podcasts.find((p) => p.spotifyId === `${acc.id}unsaved`);
    const unsavedEntry = entries.find((e) => e.podcastId === unsaved?.id);
    // Episodes 9, 19, ..., 59 (six); started or finished: i % 3 in {0, 1} -> 19, 39, 49, 9? (9%3=0 yes, 19%3=1 yes, 29%3=2 no, 39%3=0, 49%3=1, 59%3=2)
    expect(unsavedEntry).toMatchObject({
      episodeCount: 7,
      timesListened: 4,
      lastEpisode: `Unsaved show of ${acc.id} episode ${acc.id}ep49`,
    });
    expect(unsavedEntry?.lastListened?.toISOString()).toBe(new Date(Date.UTC(2026, 0, 50)).toISOString());

    const episodes = await em().count(PodcastEpisodeSchema, { spotifyId: { $like: `${acc.id}ep%` } });
    expect(episodes).toBe(60);
    const user = await spotifyLinkOf(em(), me.user.id);
    expect(user.lastSpotifySync).toBeInstanceOf(Date);

    // The library listing shows them.
    const list = await server.call('GET', `/api/users/${me.user.id}/podcasts`, { token: me.token });
    expect(list.status).toBe(200);
    expect(list.json).toHaveLength(121);
    expect(list.json.map((e: { podcast: { name: string } }) => e.podcast.name)).toContain(`Show 0 of ${acc.id}`);

    const status = await server.call('GET', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(status.json).toMatchObject({
      connected: true,
      spotifyId: acc.id,
      lastSpotifySync: user.lastSpotifySync?.toISOString(),
    });
    // (The bystander's own avatar job may report; nothing of the sync may.)
    expect(leaked.filter(([e]) => (e as { name: string }).name === 'podcasts.sync')).toHaveLength(0);
  });

  it('mirrors the library on a refresh: unsaved shows leave, entries added by hand stay', async () => {
    const acc = account(3, 0);
    const { me, socket } = await connected(acc);
    const fork = em();
    const manual = fork.create(PodcastSchema, { name: 'Added by hand', feedUrl: `https://example.test/${acc.id}.xml` });
    await fork.flush();
    fork.create(UserPodcastSchema, { userId: me.user.id, podcastId: manual.id, source: 'manual' });
    await fork.flush();

    acc.shows.splice(0, 1);
    const event = await sync(me.token, me.user.id, socket);
    expect(event.state).toBe('completed');
    const entries = await em().find(UserPodcastSchema, { userId: me.user.id });
    expect(entries).toHaveLength(3);
    expect(entries.filter((e) => e.source === 'spotify')).toHaveLength(2);
  });

  it('resolves saved shows to catalog rows by title and publisher, and leaves those rows as they are', async () => {
    const id = uniqueName('cat');
    const fork = em();
    const catalog = fork.create(PodcastSchema, {
      name: `Catalog ${id}`,
      creator: `Host ${id}`,
      feedUrl: `https://catalog.example.test/${id}.xml`,
      imageUrl: 'https://catalog.example.test/art.jpg',
    });
    // One title, two authors: the publisher says which.
    const first = fork.create(PodcastSchema, { name: `Duo ${id}`, creator: 'First' });
    const second = fork.create(PodcastSchema, { name: `The Duo ${id}!`, creator: 'Second' });
    await fork.flush();

    const byTitle = makeShow(`${id}c`, `The Catalog ${id}`, { publisher: `HOST ${id}` });
    const byAuthor = makeShow(`${id}d`, `duo ${id}`, { publisher: 'Second' });
    const otherAuthor = makeShow(`${id}x`, `Catalog ${id}`, { publisher: 'Someone Else' });
    const acc = standIn.addAccount({
      id,
      shows: [byTitle, byAuthor, otherAuthor].map((show) => ({ show, addedAt: '2026-01-01T00:00:00Z' })),
      episodes: [makeEpisode(byTitle, `${id}ep`, { addedAt: '2026-02-01T00:00:00Z' })],
    });
    const { me, socket, event } = await connected(acc);
    expect(event.state).toBe('completed');

    const own = await em().findOneOrFail(PodcastSchema, { spotifyId: `${id}x` });
    const entries = await em().find(UserPodcastSchema, { userId: me.user.id }, { orderBy: { podcastId: 'asc' } });
    expect(entries.map((e) => e.podcastId)).toEqual([catalog.id, second.id, own.id]);
    expect(entries[0]).toMatchObject({ lastEpisode: `The Catalog ${id} episode ${id}ep`, source: 'spotify' });
    expect(await em().count(PodcastSchema, { spotifyId: { $in: [`${id}c`, `${id}d`] } })).toBe(0);
    // Spotify's data went nowhere near the matched rows: not their fields, not their episodes.
    expect(await em().findOneOrFail(PodcastSchema, catalog.id)).toMatchObject({
      name: `Catalog ${id}`,
      spotifyId: null,
      imageUrl: 'https://catalog.example.test/art.jpg',
      description: null,
    });
    expect(await em().count(PodcastEpisodeSchema, { podcastId: catalog.id })).toBe(0);
    expect((await em().findOneOrFail(PodcastSchema, first.id)).name).toBe(`Duo ${id}`);

    // A refresh finds the same rows again and keeps the library as it is.
    expect((await sync(me.token, me.user.id, socket)).state).toBe('completed');
    const again = await em().find(UserPodcastSchema, { userId: me.user.id }, { orderBy: { podcastId: 'asc' } });
    expect(again.map((e) => e.id)).toEqual(entries.map((e) => e.id));
  });

  it("never resolves a saved show by title to an import's row whose feed was never read", async () => {
    const id = uniqueName('planted');
    const attacker = await server.login();
    // An upload named the title first, with a feed that was never read (no author: its feed gave none).
    const [planted] = await em()
      .getConnection()
      .execute<{ id: number }[]>(
        `insert into podcasts (name, feed_url, created_at, added_by, verified_at)
         values (?, ?, now(), ?, null) returning id`,
        [`Planted ${id}`, `https://dead-${id.replace('_', '-')}.example.test/feed.xml`, attacker.user.id],
      );
    // Spotify names no publisher for the show, so its title alone would have matched the planted row.
    const show = makeShow(`${id}s`, `Planted ${id}`, { publisher: '' });
    const acc = standIn.addAccount({ id, shows: [{ show, addedAt: '2026-01-01T00:00:00Z' }], episodes: [] });
    const { me, event } = await connected(acc);
    expect(event.state).toBe('completed');
    const own = await em().findOneOrFail(PodcastSchema, { spotifyId: `${id}s` });
    const entries = await em().find(UserPodcastSchema, { userId: me.user.id });
    expect(entries.map((e) => e.podcastId)).toEqual([own.id]);
    expect(own.id).not.toBe(planted?.id);
  });

  it('refreshes an expired access token (401), saves it, and carries on', async () => {
    const acc = account(2, 1);
    const { me, socket } = await connected(acc);
    const before = await spotifyLinkOf(em(), me.user.id);
    standIn.expireAccessTokens();
    const mark = standIn.requests.length;
    const event = await sync(me.token, me.user.id, socket);
    expect(event.state).toBe('completed');
    const calls = standIn.requests.slice(mark);
    expect(calls.find((r) => r.status === 401)).toBeDefined();
    expect(calls.find((r) => r.path === '/api/token' && r.status === 200)).toBeDefined();
    const after = await spotifyLinkOf(em(), me.user.id);
    expect(after.spotifyAccessToken).not.toBe(before.spotifyAccessToken);
    expect(after.spotifyTokenExpiry?.getTime()).toBeGreaterThan(Date.now());
  });

  it('waits out 429 answers (Retry-After) and completes', async () => {
    const acc = account(2, 1);
    const { me, socket } = await connected(acc);
    standIn.rateLimitNext(2, 1);
    const mark = standIn.requests.length;
    const event = await sync(me.token, me.user.id, socket);
    expect(event.state).toBe('completed');
    const calls = standIn.requests.slice(mark).sort((a, b) => a.at - b.at);
    const limited = calls.filter((r) => r.status === 429);
    expect(limited).toHaveLength(2);
    // What Spotify sees (the sync calls one at a time): after each 429, nothing until its Retry-After
    // (1 s) is over.
    for (const answer of limited) {
      const next = calls[calls.indexOf(answer) + 1];
      expect(next, 'a call after the 429').toBeDefined();
      expect((next?.at ?? 0) - answer.at).toBeGreaterThanOrEqual(1000);
    }
    expect(await em().count(UserPodcastSchema, { userId: me.user.id })).toBe(2);
  });

  it('on invalid_grant clears the tokens and fails once with "Reconnect Spotify"', async () => {
    const acc = account(2, 0);
    const { me, socket } = await connected(acc);
    standIn.expireAccessTokens();
    standIn.revokeRefreshTokens(acc.id);
    const updated = nextEvent(socket, 'user:updated', (u) => !u.spotifyConnected);
    const event = await sync(me.token, me.user.id, socket);
    expect(event.state).toBe('failed');
    expect(event.error?.code).toBe('spotify_reconnect');
    expect(jobErrorText(event)).toMatch(/Reconnect Spotify/);
    await updated;
    const user = await spotifyLinkOf(em(), me.user.id);
    expect(user.spotifyAccessToken).toBeNull();
    expect(user.spotifyRefreshToken).toBeNull();
    // The entries synced before stay until the user disconnects or reconnects.
    expect(await em().count(UserPodcastSchema, { userId: me.user.id })).toBe(2);
    const status = await server.call('GET', `/api/users/${me.user.id}/spotify`, { token: me.token });
    expect(status.json).toMatchObject({ connected: false });
    expect((await server.call('POST', `/api/users/${me.user.id}/spotify/sync`, { token: me.token })).status).toBe(409);
  });

  it("someone else's token ciphertexts copied onto a row do not decrypt there: nothing is read, reconnect", async () => {
    // The victim is connected; the attacker (say, with write access to their own row) copies the
    // victim's stored tokens onto it and asks for a sync.
    const acc = account(2, 0);
    const victim = await connected(acc);
    const attacker = await server.login();
    const socket = await server.socket(attacker.token);
    const fork = em();
    const stolen = await spotifyLinkOf(fork, victim.me.user.id);
    const row = await fork.findOneOrFail(UserSchema, attacker.user.id);
    fork.create(UserIdentitySchema, {
      user: row,
      provider: 'spotify',
      subject: uniqueName('attacker'),
      accessToken: stolen.spotifyAccessToken,
      refreshToken: stolen.spotifyRefreshToken,
      expiresAt: stolen.spotifyTokenExpiry,
    });
    await fork.flush();

    const mark = standIn.requests.length;
    const updated = nextEvent(socket, 'user:updated', (u) => !u.spotifyConnected);
    const event = await sync(attacker.token, attacker.user.id, socket);
    expect(event.state).toBe('failed');
    expect(event.error?.code).toBe('spotify_reconnect');
    await updated;
    // Not one call reached Spotify with the victim's tokens, and the attacker got nothing of theirs.
    expect(standIn.requests.slice(mark)).toEqual([]);
    expect(await em().count(UserPodcastSchema, { userId: attacker.user.id })).toBe(0);
    const after = await spotifyLinkOf(em(), attacker.user.id);
    expect(after.spotifyAccessToken).toBeNull();
    expect(after.spotifyRefreshToken).toBeNull();
    // The victim's own connection is untouched.
    const own = await spotifyLinkOf(em(), victim.me.user.id);
    expect(own.spotifyRefreshToken).toBe(stolen.spotifyRefreshToken);
  });
});
