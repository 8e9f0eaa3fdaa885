import { OkResponseSchema } from '../schemas/auth';
import {
  AddUserPodcastBodySchema,
  LibraryQuerySchema,
  OpmlImportResultSchema,
  PodcastSearchQuerySchema,
  PodcastSearchResultSchema,
  UpdateUserPodcastBodySchema,
  UserPodcastEntrySchema,
  UserPodcastListSchema,
} from '../schemas/podcasts';
import { defineEndpoint } from './endpoint';
import { EntryIdParams, UserIdParams } from './params';

export const podcastsApi = {
  listUserPodcasts: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/podcasts',
    access: 'owner',
    params: UserIdParams,
    query: LibraryQuerySchema,
    response: UserPodcastListSchema,
  }),
  addUserPodcast: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/podcasts',
    access: 'owner',
    rateLimit: { name: 'libraryAdds' },
    params: UserIdParams,
    body: AddUserPodcastBodySchema,
    response: UserPodcastEntrySchema,
    status: 201,
  }),
  importOpml: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/podcasts/opml',
    access: 'owner',
    kind: 'multipart',
    file: 'opml',
    rateLimit: { name: 'opmlImports' },
    params: UserIdParams,
    // multipart/form-data with one file field `opml`
    response: OpmlImportResultSchema,
    status: 202,
  }),
  updateUserPodcast: defineEndpoint({
    method: 'PUT',
    path: '/api/user-podcasts/:id',
    access: 'libraryEntryOwner',
    rateLimit: { name: 'libraryEdits' },
    params: EntryIdParams,
    body: UpdateUserPodcastBodySchema,
    response: UserPodcastEntrySchema,
  }),
  removeUserPodcast: defineEndpoint({
    method: 'DELETE',
    path: '/api/user-podcasts/:id',
    access: 'libraryEntryOwner',
    rateLimit: { name: 'libraryEdits' },
    params: EntryIdParams,
    response: OkResponseSchema,
  }),
  /** The catalog is shared by everyone signed in. */
  searchPodcasts: defineEndpoint({
    method: 'GET',
    path: '/api/podcasts/search',
    access: 'user',
    rateLimit: { name: 'search' },
    query: PodcastSearchQuerySchema,
    response: PodcastSearchResultSchema,
  }),
} as const;
