import { z } from 'zod';

const PartSchema = z.object({ ok: z.boolean(), latencyMs: z.number().optional(), detail: z.string().optional() });

export const HealthResponseSchema = z.object({
  ok: z.boolean(),
  database: PartSchema,
  redis: PartSchema,
  worker: PartSchema.extend({ workers: z.number().int() }),
  version: z.string(),
  uptimeSeconds: z.number(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
