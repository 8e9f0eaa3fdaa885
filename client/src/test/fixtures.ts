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
    ...overrides,
  };
}
