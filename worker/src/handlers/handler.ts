import type { EntityManager } from '@mikro-orm/postgresql';
import type { ArtworkUrls } from '@server/core/artwork/artwork-urls';
import type { ImageProxy } from '@server/core/artwork/image-proxy';
import type { JobQueue } from '@server/core/jobs/job-queue';
import type { Logger } from '@server/core/logger';
import type { MediaStore } from '@server/core/media';
import type { Effects } from '@server/core/realtime/effects';
import type { Publisher } from '@server/core/realtime/publisher';
import type { JobKey, JobPayload, JobResult } from '@shared/index';
import type { Redis } from 'ioredis';
import type { PushSender } from '../push/push-sender';
import type { VideoProvider } from '../videos/video-provider';

export interface JobContext {
  /** A fresh EntityManager fork for this job. */
  em: EntityManager;
  /** Sends socket events now (validated, RECIPIENTS); a job's own changes go on `effects`. */
  publisher: Publisher;
  /** This job's events, carried out once its handler succeeded (core/realtime/effects.ts). */
  effects: Effects;
  mediaDir: string;
  /** Where pictures and avatars are stored (docs/media.md). */
  media: MediaStore;
  /** Addresses feed fetching may reach despite being private (tests only). */
  feedFetchAllowedIps: string[];
  /** Its lines carry this job's id and name without being told (core/logger.ts). */
  logger: Logger;
  /** Queues a follow-up job (e.g. a match recompute after a library changed). */
  enqueue: JobQueue['enqueue'];
  /** Remote artwork and pictures, through the image proxy's checks and disk cache. */
  imageProxy: ImageProxy;
  /** Signs the image proxy URLs of artwork in what the worker announces (a match's shared shows). */
  artwork: ArtworkUrls;
  /** What renders generated intros: the local ffmpeg renderer or an external service. */
  videoProvider: VideoProvider;
  /** Parent of each video job's private temporary directory. */
  videoWorkDir: string;
  /** Whether demo people get generated intros in the background. */
  demoVideos: boolean;
  /** Aborted when the worker must stop now (shutdown timeout): stop child processes. */
  signal: AbortSignal;
  /** The worker's Redis connection (push focus, cooldowns: core/notifications/push-state.ts). */
  redis: Redis;
  /** Sends Web Push (docs/notifications.md); its `enabled` is false without VAPID keys. */
  pushSender: PushSender;
  /** BullMQ's id of this job (a video project's id for video jobs). */
  jobId: string;
  /** No retry follows if this attempt fails. */
  finalAttempt: boolean;
  /** Reports progress 0-100 to BullMQ and to the user's sockets. */
  progress(percent: number): Promise<void>;
}

export type JobHandler<K extends JobKey> = (payload: JobPayload<K>, ctx: JobContext) => Promise<JobResult<K>>;
