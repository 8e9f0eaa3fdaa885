import type { Message } from '@shared/schemas/chat';
import type { MatchView } from '@shared/schemas/matches';
import type { SelfUser } from '@shared/schemas/user';

/** A SelfUser that passes the shared schema; override what a test cares about. */
export function makeSelfUser(overrides: Partial<SelfUser> = {}): SelfUser {
  return {
    id: 7,
    displayName: 'Ada Listener',
    profilePicture: null,
    intent: 'romantic',
    tagline: null,
    romanticTagline: 'Into true-crime and long walks',
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
    ...overrides,
  };
}

/** A mutual MatchView as user `viewerId` sees it (user1Id is always the viewer), passing the shared schema. */
export function makeMatchView(
  overrides: Partial<MatchView> & { viewerId?: number; otherId?: number; name?: string } = {},
): MatchView {
  const { viewerId = 7, otherId = 9, name = 'Sam Rivers', ...rest } = overrides;
  return {
    id: 3,
    user1Id: viewerId,
    user2Id: otherId,
    intent: 'romantic',
    matchPercentage: 87,
    user1Liked: true,
    user2Liked: true,
    createdAt: '2025-01-01T00:00:00.000Z',
    isMutualMatch: true,
    isFavorite: false,
    hasUnreadMessages: false,
    sharedPodcasts: [],
    sharedPodcastCount: 0,
    lastMessageSeq: 0,
    lastMessage: null,
    readSeq: 0,
    otherReadSeq: 0,
    matchedUser: {
      id: otherId,
      displayName: name,
      profilePicture: null,
      intent: 'romantic',
      tagline: null,
      romanticTagline: null,
      platonicTagline: null,
      professionalTagline: null,
      videoIntroUrl: null,
    },
    ...rest,
  };
}

let messageIds = 1000;

/** A stored message of match 3 (seq 1 unless told), sent now by user 9 unless told. */
export function makeMessage(overrides: Partial<Message> = {}): Message {
  messageIds += 1;
  const seq = overrides.seq ?? 1;
  return {
    id: messageIds,
    matchId: 3,
    senderId: 9,
    content: `Message ${seq}`,
    seq,
    clientId: null,
    flagged: false,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

/** Messages with seqs from..to (inclusive). */
export function makeMessages(from: number, to: number, overrides: Partial<Message> = {}): Message[] {
  return Array.from({ length: to - from + 1 }, (_, i) => makeMessage({ seq: from + i, ...overrides }));
}
