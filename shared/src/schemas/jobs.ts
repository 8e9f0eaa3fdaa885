import { z } from 'zod';

export const JobAcceptedSchema = z.object({ jobId: z.string() });
export type JobAccepted = z.infer<typeof JobAcceptedSchema>;

export const JobStateSchema = z.enum(['queued', 'active', 'completed', 'failed']);
export type JobState = z.infer<typeof JobStateSchema>;
