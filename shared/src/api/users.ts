import { JobAcceptedSchema } from '../schemas/jobs';
import {
  ProfilePictureResponseSchema,
  SelfUserSchema,
  UpdateUserBodySchema,
  UserResponseSchema,
  UserViewQuerySchema,
} from '../schemas/user';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

export const usersApi = {
  /** The caller's own account, or another person as they appear for the intent in view. */
  getUser: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId',
    access: 'viewer',
    params: UserIdParams,
    query: UserViewQuerySchema,
    response: UserResponseSchema,
  }),
  updateUser: defineEndpoint({
    method: 'PUT',
    path: '/api/users/:userId',
    access: 'owner',
    params: UserIdParams,
    body: UpdateUserBodySchema,
    response: SelfUserSchema,
  }),
  /**
   * Uploads the caller's picture: multipart/form-data with one file field `profilePicture`, at most
   * LIMITS.pictureMaxBytes, typed by its content (docs/media.md); re-encoded, then 'user:updated'.
   */
  uploadProfilePicture: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/profile-picture',
    access: 'owner',
    kind: 'multipart',
    file: 'profilePicture',
    rateLimit: { name: 'uploads' },
    params: UserIdParams,
    response: ProfilePictureResponseSchema,
  }),
  /** Re-renders the generated avatar (the person's illustrated portrait, docs/media.md); progress arrives as 'job:status'. */
  generateAvatar: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/generated-avatar',
    access: 'owner',
    rateLimit: { name: 'uploads' },
    params: UserIdParams,
    response: JobAcceptedSchema,
    status: 202,
  }),
} as const;
