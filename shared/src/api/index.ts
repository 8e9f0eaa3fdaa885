// Every REST endpoint, defined once per feature; `api` is the one object server and client use.
import { accountApi } from './account';
import { artworkApi } from './artwork';
import { authApi } from './auth';
import { blueskyApi } from './bluesky';
import { chatApi } from './chat';
import { devMailApi } from './dev-mail';
import { emailAuthApi } from './email-auth';
import { feedApi } from './feed';
import { healthApi } from './health';
import { identitiesApi } from './identities';
import { matchesApi } from './matches';
import { moderationApi } from './moderation';
import { notificationsApi } from './notifications';
import { passkeysApi } from './passkeys';
import { podcastsApi } from './podcasts';
import { profilesApi } from './profiles';
import { spotifyApi } from './spotify';
import { usersApi } from './users';
import { videosApi } from './videos';

export * from './endpoint';

export const api = {
  ...healthApi,
  ...authApi,
  ...emailAuthApi,
  ...passkeysApi,
  ...identitiesApi,
  ...usersApi,
  ...accountApi,
  ...feedApi,
  ...matchesApi,
  ...chatApi,
  ...podcastsApi,
  ...profilesApi,
  ...spotifyApi,
  ...blueskyApi,
  ...videosApi,
  ...artworkApi,
  ...devMailApi,
  ...moderationApi,
  ...notificationsApi,
} as const;

export type Api = typeof api;
