import { displayName, INTENT_INFO, type Intent, type PublicUser, type SelfUser } from '@shared/index';
import { identityOf, type User, type UserProfileSchema, type UserSchema } from '../db/entities';
import type { LeftJoined, Prefixed, RowOf } from '../db/sql';

const USER_COLUMNS = [
  'id',
  'display_name',
  'profile_picture',
  'video_intro_url',
  'romantic_tagline',
  'platonic_tagline',
  'professional_tagline',
] as const satisfies readonly (keyof RowOf<typeof UserSchema>)[];
const PROFILE_COLUMNS = [
  'display_name',
  'tagline',
  'profile_picture',
  'video_intro_url',
  'video_poster_url',
] as const satisfies readonly (keyof RowOf<typeof UserProfileSchema>)[];

/**
 * The columns a public presentation needs: the user as `u` joined with their profile for the
 * intent in view as `pr` (left join: `pr` may be missing), selected as `u_<column>` and `pr_<column>`.
 */
export const PUBLIC_USER_COLUMNS = [
  ...USER_COLUMNS.map((column) => `u.${column} as u_${column}`),
  ...PROFILE_COLUMNS.map((column) => `pr.${column} as pr_${column}`),
].join(', ');

export type PublicUserRow = Prefixed<'u_', Pick<RowOf<typeof UserSchema>, (typeof USER_COLUMNS)[number]>> &
  Prefixed<'pr_', LeftJoined<Pick<RowOf<typeof UserProfileSchema>, (typeof PROFILE_COLUMNS)[number]>>>;

/** The user's own tagline of each intent, used when their profile for it has none. */
const USER_TAGLINE_COLUMN = {
  romantic: 'u_romantic_tagline',
  platonic: 'u_platonic_tagline',
  professional: 'u_professional_tagline',
} as const satisfies Record<Intent, keyof PublicUserRow>;

/**
 * What another person may see of a user, for one intent only: the name, picture, video and
 * tagline of that intent's profile. Taglines of other intents stay empty (a dating tagline is not
 * shown to a professional contact), and `intent` is the intent in view, not the person's current
 * one. Never tokens, password, username or account links.
 */
export function toPublicUser(row: PublicUserRow, intent: Intent): PublicUser {
  const taglineField = INTENT_INFO[intent].taglineField;
  const tagline = row.pr_tagline ?? row[USER_TAGLINE_COLUMN[intent]] ?? null;
  return {
    id: row.u_id,
    displayName: displayName(row.pr_display_name, row.u_display_name),
    profilePicture: row.u_profile_picture ?? row.pr_profile_picture ?? null,
    intent,
    tagline,
    romanticTagline: taglineField === 'romanticTagline' ? tagline : null,
    platonicTagline: taglineField === 'platonicTagline' ? tagline : null,
    professionalTagline: taglineField === 'professionalTagline' ? tagline : null,
    videoIntroUrl: row.pr_video_intro_url ?? row.u_video_intro_url ?? null,
  };
}

/**
 * What the owner sees of their own account: every intent's fields and what is linked (the linked
 * identities are loaded with every user), still no password and no token.
 */
export function toSelfUser(user: User): SelfUser {
  const spotify = identityOf(user, 'spotify');
  const bluesky = identityOf(user, 'bluesky');
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
    username: user.username,
    spotifyId: spotify?.subject ?? null,
    spotifyConnected: Boolean(spotify?.refreshToken),
    lastSpotifySync: spotify?.syncedAt?.toISOString() ?? null,
    atpHandle: bluesky?.handle ?? null,
    matchPreferences: { minMatchPercentage: user.matchPreferences?.minMatchPercentage ?? 0 },
    createdAt: user.createdAt.toISOString(),
    setupStep: user.setupStep ?? 0,
    setupComplete: user.setupCompletedAt != null,
    quizAnswers: user.quizAnswers ?? {},
    ...(user.role ? { role: user.role } : {}),
  };
}
