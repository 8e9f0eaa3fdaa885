import { z } from 'zod';

const PartSchema = z.object({ ok: z.boolean(), latencyMs: z.number().optional(), detail: z.string().optional() });

/** Everyone sees `ok`; the parts only local or token-holding operators (docs/operations.md). */
export const HealthResponseSchema = z.object({
  ok: z.boolean(),
  database: PartSchema.optional(),
  redis: PartSchema.optional(),
  worker: PartSchema.extend({ workers: z.number().int() }).optional(),
  version: z.string().optional(),
  uptimeSeconds: z.number().optional(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/** A liveness or readiness probe's answer (200 when ok, 503 when not). */
export const ProbeResponseSchema = z.object({ ok: z.boolean() });
export type ProbeResponse = z.infer<typeof ProbeResponseSchema>;
