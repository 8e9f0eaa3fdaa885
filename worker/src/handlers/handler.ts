import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobQueue } from '@server/core/jobs/job-queue';
import type { Logger } from '@server/core/logger';
import type { MediaStore } from '@server/core/media';
import type { JobKey, JobPayload, JobResult, ServerToClientEvents } from '@shared/index';
import type { Emitter } from '@socket.io/redis-emitter';

export interface JobContext {
  /** A fresh EntityManager fork for this job. */
  em: EntityManager;
  emitter: Emitter<ServerToClientEvents>;
  mediaDir: string;
  /** Where pictures and avatars are stored (docs/media.md). */
  media: MediaStore;
  /** Addresses feed fetching may reach despite being private (tests only). */
  feedFetchAllowedIps: string[];
  logger: Logger;
  /** Queues a follow-up job (e.g. a match recompute after a library changed). */
  enqueue: JobQueue['enqueue'];
  /** Reports progress 0-100 to BullMQ and to the user's sockets. */
  progress(percent: number): Promise<void>;
}

export type JobHandler<K extends JobKey> = (payload: JobPayload<K>, ctx: JobContext) => Promise<JobResult<K>>;
