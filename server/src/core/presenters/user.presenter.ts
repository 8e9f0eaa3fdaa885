import type { PublicUser, SelfUser } from '@shared/index';
import type { User } from '../db/entities';

/** The fields anyone signed in may see. Never tokens, password, username or account links. */
export function toPublicUser(user: User): PublicUser {
  return {
    id: user.id,
    displayName: user.displayName,
    profilePicture: user.profilePicture ?? null,
    intent: user.intent,
    tagline: user.tagline ?? null,
    romanticTagline: user.romanticTagline ?? null,
    platonicTagline: user.platonicTagline ?? null,
    professionalTagline: user.professionalTagline ?? null,
    videoIntroUrl: user.videoIntroUrl ?? null,
  };
}

/** What the owner sees of their own account: still no password and no token of any kind. */
export function toSelfUser(user: User): SelfUser {
  return {
    ...toPublicUser(user),
    username: user.username,
    spotifyId: user.spotifyId ?? null,
    spotifyConnected: Boolean(user.spotifyRefreshToken),
    lastSpotifySync: user.lastSpotifySync?.toISOString() ?? null,
    atpHandle: user.atpHandle ?? null,
    matchPreferences: { minMatchPercentage: user.matchPreferences?.minMatchPercentage ?? 0 },
    createdAt: user.createdAt.toISOString(),
  };
}
