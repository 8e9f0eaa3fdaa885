// Product constants from SPEC.md. No I/O here: client, server and worker all import this file.

export const APP_NAME = 'PodMatch';
export const APP_TAGLINE = 'Find your people through the podcasts you love';
export const PAGE_TITLE = `${APP_NAME} - ${APP_TAGLINE}`;

export const INTENTS = ['romantic', 'platonic', 'professional'] as const;
export type Intent = (typeof INTENTS)[number];
export const DEFAULT_INTENT: Intent = 'romantic';

export interface IntentInfo {
  /** Segment and tab label. */
  label: string;
  /** Longer display name used in sentences ("Socializing tab"). */
  longLabel: string;
  companion: string;
  /** Main UI colour (CSS), and the video theme pair from SPEC section 9. */
  color: string;
  videoColors: readonly [string, string];
  defaultTagline: string;
  missingTagline: string;
  mutualMatchTitle: string;
  /** The user-facing tagline field for this intent. */
  taglineField: 'romanticTagline' | 'platonicTagline' | 'professionalTagline';
}

export const INTENT_INFO: Record<Intent, IntentInfo> = {
  romantic: {
    label: 'Dating',
    longLabel: 'Dating',
    companion: 'Crush Buddy',
    color: '#D10469',
    videoColors: ['#D10469', '#FF3D9A'],
    defaultTagline: 'Looking for connections',
    missingTagline: 'No dating tagline set',
    mutualMatchTitle: 'Your frequencies are aligned!',
    taglineField: 'romanticTagline',
  },
  platonic: {
    label: 'Social',
    longLabel: 'Socializing',
    companion: 'Kindred Buddy',
    color: '#3465A4',
    videoColors: ['#3465A4', '#729FCF'],
    defaultTagline: 'Looking for friends',
    missingTagline: 'No social tagline set',
    mutualMatchTitle: "It's a sound match!",
    taglineField: 'platonicTagline',
  },
  professional: {
    label: 'Network',
    longLabel: 'Networking',
    companion: 'Work Buddy',
    color: '#008080',
    videoColors: ['#008080', '#20B2AA'],
    defaultTagline: 'Professional networker',
    missingTagline: 'No professional tagline set',
    mutualMatchTitle: "You're both on the same wavelength!",
    taglineField: 'professionalTagline',
  },
};

/** Toast text shown on a mutual match (SPEC section 4). */
export const LIMITS = {
  videoMaxSeconds: 30,
  videoMaxBytes: 50 * 1024 * 1024,
  pictureMaxBytes: 5 * 1024 * 1024,
  usernameMaxLength: 40,
  displayNameMaxLength: 60,
  taglineMaxLength: 160,
  jsonBodyMaxBytes: 100 * 1024,
  opmlMaxBytes: 1024 * 1024,
  messageMaxLength: 2000,
  /** Messages per page of GET .../messages (newest window, older pages, catch-up). */
  messagePageSize: 50,
  messagePageMax: 200,
} as const;

export const GESTURES = {
  feedVerticalPx: 80,
  screenSwipePx: 100,
  feedHorizontalPx: 150,
  hintPx: 20,
  exitDelayMs: 300,
} as const;

export const TIMING = {
  messagePollMs: 5000,
  spotifyRedirectDelayMs: 1000,
  loginErrorToastMs: 5000,
  ringDelayMs: 300,
  ringDurationMs: 2800,
} as const;

export const TOAST = {
  limit: 1,
  durationMs: 5000,
  swipeThresholdPx: 50,
  hotkey: 'F8',
  removeDelayMs: 1_000_000,
} as const;

/** Chat texts (SPEC sections 2 and 8). */
/** What a tab shows when the server closed its live connection (`connection:closed`). */
export const CONNECTION_TEXTS = {
  tooManyTitle: 'Open in too many places',
  tooManyBody: 'PodMatch is open in many tabs or devices, so this tab stopped updating live. Reload it to use it here.',
} as const;

export const CHAT_TEXTS = {
  placeholder: 'Type a message...',
  emptyTitle: 'Start a conversation',
  icebreakerButton: 'Generate Icebreaker',
  sendFailed: 'Failed to send message. Please try again.',
  notFoundTitle: 'Conversation not found',
  notFoundBody: 'This match may no longer exist or you may not have access to it.',
  backToMatches: 'Back to Matches',
  accountDeletedTitle: 'This person deleted their account',
  accountDeletedBody:
    'Their profile and this conversation were deleted with their account, as our privacy policy promises. Your other matches are as they were.',
  tooLong: `Messages can be at most 2,000 characters.`,
  rateLimited: 'You are sending messages too fast. Please wait a moment and try again.',
  /** The first message when the two share no podcast. */
  noSharedOpener: 'Hey there! What podcasts have you been enjoying lately?',
} as const;

/** Suggested first messages naming a shared podcast ({podcast} is replaced). */
export const ICEBREAKER_TEMPLATES = [
  'I noticed we both listen to {podcast}! What did you think of the latest episode?',
  'Hey! Fellow {podcast} fan here. How did you get into it?',
  'So you like {podcast} too? I need someone to talk about it with!',
  "Hi there! I see we share a love for {podcast}. What's your favorite episode?",
] as const;

/** Default shown on a match card when the percentage is absent. */
export const DEFAULT_CARD_MATCH_PERCENTAGE = 68;

/** Suggested usernames on the login screen's development section. */
export const DEV_LOGIN_SUGGESTIONS = ['alex', 'jordan', 'sam', 'riley'] as const;

/** Error values the server puts in /login?error=..., with their toasts (SPEC section 8). */
export const LOGIN_ERRORS: Record<string, { title: string; description: string }> = {
  missing_spotify_credentials: {
    title: 'Spotify is not configured',
    description: 'This server has no Spotify client credentials. Log in another way for now.',
  },
  spotify_no_code: {
    title: 'Spotify login cancelled',
    description: 'Spotify did not return an authorization code. Please try again.',
  },
  spotify_profile_error: {
    title: 'Could not read your Spotify profile',
    description: 'We could not load your Spotify profile. Please try again.',
  },
  spotify_auth_failed: {
    title: 'Spotify login failed',
    description: 'Spotify authorization failed. Please try again.',
  },
};
export const GENERIC_LOGIN_ERROR = {
  title: 'Login Error',
  description: 'Something went wrong while logging in. Please try again.',
};

/** Storage keys for the session (kept in both localStorage and sessionStorage). */
export const STORAGE_KEYS = { token: 'podmatch.authToken', userId: 'podmatch.userId' } as const;

/** Response header carrying a rotated bearer token. */
export const NEW_TOKEN_HEADER = 'X-New-Token';
