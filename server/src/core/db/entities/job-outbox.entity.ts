import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type { JobKey } from '@shared/jobs';

/**
 * A job staged in the same transaction as the change that needs it, until the relay queues it in
 * BullMQ and deletes the row (core/jobs/outbox.ts; docs/operations.md, "Jobs that cannot be lost").
 */
export const JobOutboxSchema = defineEntity({
  name: 'JobOutbox',
  tableName: 'job_outbox',
  properties: {
    // bigint: PostgreSQL returns it as text, and so does the entity.
    id: p.bigint('string').primary().autoincrement(),
    /** Which job (`jobs` in shared/src/jobs.ts); the payload was checked against its schema when staged. */
    jobKey: p.text().$type<JobKey>(),
    /** The BullMQ job id, `outbox-<id>` unless the stager named one. */
    jobId: p.text(),
    payload: p.json<unknown>(),
    /** BullMQ options other than the id (core/jobs/outbox.ts, StageOptions). */
    options: p.json<{ delayMs?: number; priority?: number }>().defaultRaw(`'{}'`),
    createdAt: p.datetime().defaultRaw('now()'),
    /** Created by Migration20261124140000 but not written yet: the relay retries a row until Redis takes it. */
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
});
export type JobOutbox = InferEntity<typeof JobOutboxSchema>;
