import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  clientEvents,
  isJobFinished,
  isJobStatus,
  JobError,
  type JobErrorCode,
  type JobStatusEvent,
  jobErrorText,
  jobFailure,
  jobStatusEvent,
  jobStatusSchemas,
  type ServerEventName,
  type ServerToClientEvents,
  serverEvents,
} from './events';
import { jobs } from './jobs';
import type { Message } from './schemas/chat';
import type { MatchView } from './schemas/matches';
import type { SelfUser } from './schemas/user';

const user: SelfUser = {
  id: 7,
  displayName: 'Ada Listener',
  profilePicture: null,
  intent: 'romantic',
  tagline: null,
  romanticTagline: null,
  platonicTagline: null,
  professionalTagline: null,
  videoIntroUrl: null,
  username: 'ada',
  spotifyId: null,
  spotifyConnected: false,
  lastSpotifySync: null,
  atpHandle: null,
  matchPreferences: { minMatchPercentage: 0 },
  createdAt: '2025-01-01T00:00:00.000Z',
  setupStep: 0,
  setupComplete: true,
  quizAnswers: {},
};

const match: MatchView = {
  id: 3,
  user1Id: 7,
  user2Id: 9,
  intent: 'platonic',
  matchPercentage: 80,
  user1Liked: true,
  user2Liked: true,
  createdAt: '2025-01-01T00:00:00.000Z',
  isMutualMatch: true,
  isFavorite: false,
  hasUnreadMessages: true,
  sharedPodcasts: [{ id: 11, name: 'Radiolab', creator: 'WNYC Studios', imageUrl: null }],
  sharedPodcastCount: 4,
  lastMessageSeq: 2,
  lastMessage: null,
  readSeq: 1,
  otherReadSeq: 2,
  matchedUser: {
    id: 9,
    displayName: 'Sam',
    profilePicture: null,
    intent: 'platonic',
    tagline: null,
    romanticTagline: null,
    platonicTagline: null,
    professionalTagline: null,
    videoIntroUrl: null,
  },
};

const counts = { romantic: 1, platonic: 0, professional: 2 };

const message: Message = {
  id: 40,
  matchId: 3,
  senderId: 9,
  content: 'Hello <b>there</b>',
  seq: 1,
  clientId: '1b4e28ba-2fa1-4d2b-883f-0016d3cca427',
  flagged: false,
  createdAt: '2025-01-02T00:00:00.000Z',
};

const notice = {
  id: 4,
  kind: 'action',
  action: {
    id: 7,
    kind: 'suspend',
    reason: 'harassment',
    rule: 'respect',
    ruleText: 'Treat people with respect: no harassment, threats or hate.',
    explanation: 'You sent threatening messages.',
    endsAt: '2025-01-09T00:00:00.000Z',
    createdAt: '2025-01-02T00:00:00.000Z',
  },
  appeal: null,
  canAppeal: true,
  createdAt: '2025-01-02T00:00:00.000Z',
} as const;

const valid: { [E in ServerEventName]: Parameters<ServerToClientEvents[E]>[0][] } = {
  'user:updated': [user],
  'job:status': [
    { jobId: '1', name: 'avatar.generate', state: 'queued', progress: 0 },
    { jobId: '2', name: 'podcasts.sync', state: 'active', progress: 42.5 },
    {
      jobId: '3',
      name: 'podcasts.sync',
      state: 'failed',
      progress: 0,
      error: { code: 'spotify_reconnect', message: 'Reconnect Spotify.' },
    },
    { jobId: '4', name: 'matches.recompute', state: 'completed', progress: 100 },
  ],
  'badges:update': [{ feed: counts, unreadMatches: counts }],
  'badges:unread': [{ unreadMatches: counts }],
  'match:new': [match],
  'match:removed': [{ matchId: 3, intent: 'platonic' }],
  'session:ended': ['logout', 'expired', 'suspended'],
  'moderation:notice': [
    { notice, appealToken: null },
    {
      notice: { ...notice, kind: 'appealOutcome', appeal: { state: 'reversed', explanation: 'We got it wrong.' } },
      appealToken: 'x'.repeat(40),
    },
  ],
  'connection:closed': ['too_many_connections'],
  'message:new': [message, { ...message, clientId: null }],
  'message:read': [
    { matchId: 3, userId: 9, seq: 2 },
    { matchId: 3, userId: 7, seq: 0 },
  ],
  typing: [
    { matchId: 3, userId: 9, typing: true },
    { matchId: 3, userId: 9, typing: false },
  ],
  presence: [
    { userId: 9, online: true },
    { userId: 9, online: false },
  ],
  'realtime:resync': [{}],
};

const invalid: { [E in ServerEventName]: unknown[] } = {
  'user:updated': [undefined, { ...user, id: 'seven' }, { ...user, displayName: undefined }],
  'job:status': [
    { jobId: '1', name: 'podcasts.sync', state: 'failed', progress: 0, error: 'boom' },
    { jobId: '1', name: 'unknown.job', state: 'completed', progress: 100 },
    { jobId: '1', name: 'podcasts.sync', state: 'done', progress: 100 },
    { jobId: '1', name: 'podcasts.sync', state: 'active', progress: 101 },
    { jobId: '', name: 'podcasts.sync', state: 'active', progress: 1 },
    // A code of another job: the avatar job cannot fail with a Spotify reason.
    {
      jobId: '1',
      name: 'avatar.generate',
      state: 'failed',
      progress: 0,
      error: { code: 'spotify_reconnect', message: 'x' },
    },
  ],
  'badges:update': [
    { feed: counts },
    { feed: counts, unreadMatches: { romantic: 1 } },
    { feed: { ...counts, romantic: -1 }, unreadMatches: counts },
  ],
  'badges:unread': [{}, { unreadMatches: { ...counts, romantic: -1 } }, { unreadMatches: 'none' }],
  'match:new': [{ ...match, intent: 'casual' }, { ...match, matchedUser: undefined }, null],
  'match:removed': [{ matchId: '3', intent: 'platonic' }, { matchId: 3 }, { matchId: 0, intent: 'romantic' }],
  'session:ended': ['kicked', undefined],
  'moderation:notice': [
    { notice: { ...notice, kind: 'strike' }, appealToken: null },
    { notice },
    { appealToken: null },
  ],
  'connection:closed': ['logout', undefined, { reason: 'too_many_connections' }],
  'message:new': [
    { ...message, seq: 0 },
    { ...message, seq: undefined },
    { ...message, content: undefined },
    { ...message, id: '40' },
    { ...message, createdAt: 'yesterday' },
  ],
  'message:read': [
    { matchId: 3, userId: 9 },
    { matchId: 3, userId: 9, seq: -1 },
    { matchId: 0, userId: 9, seq: 1 },
  ],
  typing: [
    { matchId: 3, userId: 9 },
    { matchId: 3, userId: 9, typing: 'yes' },
  ],
  presence: [{ userId: 9 }, { userId: 'nine', online: true }],
  'realtime:resync': [null, 'now', { at: 1 }],
};

describe('server event schemas', () => {
  it.each(Object.keys(serverEvents) as ServerEventName[])('%s accepts valid payloads', (event) => {
    for (const payload of valid[event]) expect(serverEvents[event].safeParse(payload).error).toBeUndefined();
  });

  it.each(Object.keys(serverEvents) as ServerEventName[])('%s refuses malformed payloads', (event) => {
    for (const payload of invalid[event])
      expect(serverEvents[event].safeParse(payload).success, String(payload)).toBe(false);
  });

  it('has a job:status schema for every job name', () => {
    expect(Object.keys(jobStatusSchemas).sort()).toEqual(
      Object.values(jobs)
        .map((j) => j.name)
        .sort(),
    );
  });
});

describe('client event schemas', () => {
  const clientId = message.clientId as string;

  it('accepts a message to send and refuses blank, too long, extra fields or a non-UUID clientId', () => {
    const send = clientEvents['message:send'];
    expect(send.safeParse({ matchId: 3, content: 'Hi', clientId }).success).toBe(true);
    expect(send.safeParse({ matchId: 3, content: 'x'.repeat(2000), clientId }).success).toBe(true);
    for (const bad of [
      { matchId: 3, content: '   \n', clientId },
      { matchId: 3, content: 'x'.repeat(2001), clientId },
      { matchId: 3, content: 'Hi', clientId: 'abc' },
      { matchId: 3, content: 'Hi' },
      { matchId: 3, content: 'Hi', clientId, senderId: 9 },
    ])
      expect(send.safeParse(bad).success, JSON.stringify(bad).slice(0, 60)).toBe(false);
  });

  it('checks read receipts, typing and presence requests', () => {
    expect(clientEvents['message:read'].safeParse({ matchId: 3, seq: 0 }).success).toBe(true);
    expect(clientEvents['message:read'].safeParse({ matchId: 3, seq: -1 }).success).toBe(false);
    expect(clientEvents.typing.safeParse({ matchId: 3, typing: true }).success).toBe(true);
    expect(clientEvents.typing.safeParse({ matchId: 3, typing: true, userId: 9 }).success).toBe(false);
    expect(clientEvents['presence:get'].safeParse({ matchId: 3 }).success).toBe(true);
    expect(clientEvents['presence:get'].safeParse({ matchId: 'x' }).success).toBe(false);
  });
});

describe('job:status helpers', () => {
  it('narrows an event to its job, so error codes are those of that job', () => {
    const event = serverEvents['job:status'].parse(valid['job:status'][2]);
    expect(isJobStatus(event, 'podcasts.sync')).toBe(true);
    expect(isJobStatus(event, 'avatar.generate')).toBe(false);
    if (isJobStatus(event, 'podcasts.sync')) {
      expectTypeOf(event.error?.code).toEqualTypeOf<JobErrorCode<'podcasts.sync'> | undefined>();
    }
    expect(isJobFinished(event)).toBe(true);
    expect(isJobFinished({ state: 'active' })).toBe(false);
  });

  it('gives the text of the code, with per-screen overrides', () => {
    const failed = (code?: JobErrorCode<'podcasts.sync'>): JobStatusEvent<'podcasts.sync'> => ({
      jobId: '1',
      name: 'podcasts.sync',
      state: 'failed',
      progress: 0,
      ...(code ? { error: { code, message: 'internal detail' } } : {}),
    });
    expect(jobErrorText(failed('spotify_reconnect'))).toMatch(/Reconnect Spotify/);
    expect(jobErrorText(failed())).toBe(jobErrorText(failed('unknown')));
    expect(jobErrorText(failed('unknown'), { unknown: 'Own words.' })).toBe('Own words.');
    expect(jobErrorText(failed('spotify_reconnect'), { unknown: 'Own words.' })).toMatch(/Reconnect Spotify/);
  });
});

describe('jobStatusEvent (worker side)', () => {
  it('names the event after the job definition and keeps progress in range', () => {
    const event = jobStatusEvent('podcastsSync', { jobId: '9', state: 'active', progress: 140 });
    expect(event).toEqual({ jobId: '9', name: 'podcasts.sync', state: 'active', progress: 100 });
    expect(serverEvents['job:status'].safeParse(event).success).toBe(true);
  });

  it("maps a thrown JobError to its code, also as an error's cause", () => {
    const revoked = new JobError('spotify_reconnect', undefined, { final: true });
    expect(revoked.final).toBe(true);
    const event = jobStatusEvent('podcastsSync', { jobId: '9', state: 'failed', progress: 0, error: revoked });
    expect(event.error).toEqual({ code: 'spotify_reconnect', message: expect.stringMatching(/Reconnect Spotify/) });
    expect(serverEvents['job:status'].safeParse(event).success).toBe(true);

    const wrapped = new Error('Unrecoverable', { cause: revoked });
    expect(jobFailure('podcasts.sync', wrapped).code).toBe('spotify_reconnect');
  });

  it("turns other errors, and codes the job does not have, into 'unknown' without their message", () => {
    const secret = new Error('connect ECONNREFUSED 10.0.0.5:5432');
    const failure = jobFailure('podcasts.sync', secret);
    expect(failure.code).toBe('unknown');
    expect(failure.message).not.toContain('10.0.0.5');
    expect(jobFailure('avatar.generate', new JobError('spotify_reconnect')).code).toBe('unknown');
    const event = jobStatusEvent('avatarGenerate', { jobId: '1', state: 'failed', progress: 0, error: 'a string' });
    expect(serverEvents['job:status'].safeParse(event).success).toBe(true);
  });
});
