import { FeedCountsSchema, FeedQuerySchema, FeedResponseSchema } from '../schemas/feed';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

export const feedApi = {
  feed: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/feed',
    access: 'owner',
    params: UserIdParams,
    query: FeedQuerySchema,
    response: FeedResponseSchema,
  }),
  feedCounts: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/feed-counts',
    access: 'owner',
    params: UserIdParams,
    response: FeedCountsSchema,
  }),
} as const;
