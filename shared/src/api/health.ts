import { HealthResponseSchema } from '../schemas/health';
import { defineEndpoint } from './endpoint';

export const healthApi = {
  health: defineEndpoint({ method: 'GET', path: '/api/health', access: 'public', response: HealthResponseSchema }),
} as const;
