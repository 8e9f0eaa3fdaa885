import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobKey, JobPayload, JobResult, ServerToClientEvents } from '@shared/index';
import type { Emitter } from '@socket.io/redis-emitter';
import type { Logger } from '../../../server/src/logger';

export interface JobContext {
  /** A fresh EntityManager fork for this job. */
  em: EntityManager;
  emitter: Emitter<ServerToClientEvents>;
  mediaDir: string;
  logger: Logger;
  /** Reports progress 0-100 to BullMQ and to the user's sockets. */
  progress(percent: number): Promise<void>;
}

export type JobHandler<K extends JobKey> = (payload: JobPayload<K>, ctx: JobContext) => Promise<JobResult<K>>;
