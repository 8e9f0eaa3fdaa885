import { ProfileDetailsSchema } from '../schemas/profile-details';
import { UserViewQuerySchema } from '../schemas/user';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

export const profilesApi = {
  /** Another person's profile page (or the caller's own), in the intent in view. */
  profileDetails: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/profile-details',
    access: 'viewer',
    params: UserIdParams,
    query: UserViewQuerySchema,
    response: ProfileDetailsSchema,
  }),
} as const;
