import { HealthResponseSchema, ProbeResponseSchema } from '../schemas/health';
import { defineEndpoint } from './endpoint';

export const healthApi = {
  health: defineEndpoint({ method: 'GET', path: '/api/health', access: 'public', response: HealthResponseSchema }),
  /** Liveness: the process answers (a container restarts when it stops answering). */
  healthLive: defineEndpoint({
    method: 'GET',
    path: '/api/health/live',
    access: 'public',
    response: ProbeResponseSchema,
  }),
  /** Readiness: this instance takes new requests (it is not shutting down); the load balancer asks. */
  healthReady: defineEndpoint({
    method: 'GET',
    path: '/api/health/ready',
    access: 'public',
    response: ProbeResponseSchema,
  }),
} as const;
