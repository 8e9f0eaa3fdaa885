import { AccountExportSchema, DeleteAccountBodySchema } from '../schemas/account';
import { OkResponseSchema } from '../schemas/auth';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

/** The person's own data (docs/privacy.md): a download of all of it, and deleting it all. */
export const accountApi = {
  exportAccount: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/export',
    access: 'owner',
    params: UserIdParams,
    response: AccountExportSchema,
  }),
  deleteAccount: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId',
    access: 'owner',
    params: UserIdParams,
    body: DeleteAccountBodySchema,
    response: OkResponseSchema,
  }),
} as const;
