// What a person reads when they hit a rate limit (a 429 with Retry-After; docs/security.md).
// Chat and video keep their own texts (CHAT_TEXTS, VIDEO_TEXTS).
export const RATE_LIMIT_TEXTS = {
  signIn: 'Too many sign-in attempts. Please wait a few minutes and try again.',
  swipes: 'You are liking and passing very fast. Please wait a moment and try again.',
  reports: 'You have sent many reports in a short time. Please wait before reporting again.',
  opmlImports: 'You have imported many podcast lists in a short time. Please wait before importing again.',
  libraryAdds: 'You have added many podcasts in a short time. Please wait a moment and try again.',
  search: 'Too many searches in a short time. Please wait a moment and try again.',
  uploads: 'You have uploaded many files in a short time. Please wait before uploading again.',
  artwork: 'Too many pictures requested in a short time. Please wait a moment.',
  blueskyLinks: 'You have started many Bluesky links in a short time. Please wait a few minutes and try again.',
  libraryEdits: 'You have changed your library many times in a short time. Please wait a moment and try again.',
  spotifySyncs: 'You have refreshed from Spotify many times in a short time. Please wait a few minutes and try again.',
  socketEvents: 'Too many actions in a short time. Please wait a moment.',
  emailCodes: 'Too many codes requested. Please wait a few minutes before asking for another one.',
  emailCodesDaily: 'Too many codes were requested today. Please try again tomorrow, or sign in another way.',
  passkeys: 'Too many passkey attempts. Please wait a few minutes and try again.',
  moderation: 'Too many moderation requests in a short time. Please wait a moment.',
  appeals: 'You have sent several appeals in a short time. Please wait before sending another.',
  pushSettings: 'You have changed notification settings many times in a short time. Please wait a moment.',
} as const;

/**
 * Every rate limit by name (the allowances are the server's: server/src/http/rate-limits.ts). An
 * endpoint names the one taken at its door (shared/src/api/endpoint.ts `rateLimit`); `messages`,
 * `videoStarts` and `socketEvents` are taken inside the shared paths that need them.
 */
export const RATE_LIMIT_NAMES = [
  'signIn',
  'codeExchange',
  'swipes',
  'reports',
  'messages',
  'opmlImports',
  'libraryAdds',
  'search',
  'uploads',
  'videoStarts',
  'artwork',
  'blueskyLinks',
  'libraryEdits',
  'spotifySyncs',
  'socketEvents',
  'emailCodes',
  'emailCodesDaily',
  'passkeys',
  'moderation',
  'appeals',
  'pushSettings',
] as const;
export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number];
