import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ArtworkUrls } from '@server/core/artwork/artwork-urls';
import { ImageProxy } from '@server/core/artwork/image-proxy';
import { ormConfig } from '@server/core/db/orm-config';
import { JobQueue } from '@server/core/jobs/job-queue';
import { type Logger, withLogFields } from '@server/core/logger';
import { createMediaStore } from '@server/core/media';
import { createWorkerMetrics } from '@server/core/metrics/metrics';
import { serveMetrics } from '@server/core/metrics/metrics-server';
import { Effects } from '@server/core/realtime/effects';
import { createEmitter } from '@server/core/realtime/emitter';
import { Publisher } from '@server/core/realtime/publisher';
import { watchRedis } from '@server/core/realtime/watch-redis';
import { connectRedis } from '@server/core/redis/redis-settings';
import { queueDemoIntros } from '@server/core/videos/demo-intros';
import { JobError, type JobKey, type JobState, jobStatusEvent, jobs, QUEUES, WORKER_HEARTBEAT } from '@shared/index';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config';
import { assertHandlersCoverJobs, handlers, jobKeyByName } from './handlers';
import type { JobHandler } from './handlers/handler';
import { PushSender } from './push/push-sender';
import { createVideoProvider } from './videos/provider-config';
import { sweepDeadWorkDirs } from './videos/work-dir';

/** The one schedule of the full candidate recompute (docs/matching.md). */
export const RECOMPUTE_ALL_SCHEDULER = 'matches.recompute:all';
export const MATCHES_REFRESH_SCHEDULER = 'matches.recompute:refresh';
/** The one schedule of the report retention sweep (docs/privacy.md, "Reports"). */
export const REPORTS_EXPIRE_SCHEDULER = 'reports.expire';
const MATCHING_LOCK_MS = 5 * 60_000;

export interface RunningWorker {
  id: string;
  /** Where Prometheus scrapes this worker (METRICS_PORT), if anywhere. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * Starts one BullMQ Worker per queue of this process's role (config.queues, each with its own
 * concurrency), a heartbeat for /api/health, the periodic full recompute when this process serves
 * the matching queue, and returns a closer.
 */
export async function startWorker(config: WorkerConfig, logger: Logger): Promise<RunningWorker> {
  assertHandlersCoverJobs();
  const id = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  // BullMQ workers block on Redis; they need unlimited retries per request.
  const connection = connectRedis(config.redis, { maxRetriesPerRequest: null });
  watchRedis(connection, 'redis', logger);
  const publisher = new Publisher(createEmitter(connection));
  const followUps = new JobQueue(connection);
  const media = createMediaStore(config.media);
  const imageProxy = new ImageProxy(config.imageProxy, logger);
  const artwork = new ArtworkUrls(config.imageProxy.key);
  const videoProvider = createVideoProvider(config.videoProvider);
  const pushSender = new PushSender(config.push);
  // Aborted when shutdown cannot wait any longer: renders stop their ffmpeg children.
  const shutdown = new AbortController();
  if (config.queues.includes(QUEUES.video)) await sweepDeadWorkDirs(config.videoWorkDir, logger);

  const notify = (job: Job, key: JobKey, status: { state: JobState; progress: number; error?: unknown }) => {
    const userId = jobs[key].notifyUser?.(job.data as never);
    if (userId === undefined) return;
    publisher.emit('job:status', jobStatusEvent(key, { jobId: job.id ?? '', ...status }), { userId });
  };

  const metrics = createWorkerMetrics(orm, connection, { served: config.metrics.port !== undefined });
  const metricsServer = await serveMetrics(metrics, config.metrics, logger);

  // Every line a job writes, however deep, carries its id and name (docs/operations.md, "Logs").
  const runJob = (job: Job) =>
    withLogFields({ jobId: job.id ?? '', job: job.name }, async () => {
      const started = performance.now();
      // Waiting starts when the job could first run: queued, or its delay over.
      const waited = (Date.now() - (job.timestamp + (job.opts.delay ?? 0))) / 1000;
      logger.debug(`job started (attempt ${job.attemptsMade + 1})`);
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const result = await handle(job);
        metrics.jobFinished(job.queueName, 'completed', waited, seconds());
        logger.debug(`job completed in ${Math.round(seconds() * 1000)} ms`);
        return result;
      } catch (error) {
        metrics.jobFinished(job.queueName, 'failed', waited, seconds());
        throw error;
      }
    });

  const handle = async (job: Job) => {
    const key = jobKeyByName.get(job.name);
    if (!key) throw new UnrecoverableError(`Unknown job name ${job.name}`);
    const def = jobs[key];
    const payload = def.payload.parse(job.data);
    notify(job, key, { state: 'active', progress: 0 });
    const handler = handlers[key] as JobHandler<typeof key>;
    let result: unknown;
    const effects = new Effects({ publisher });
    try {
      result = await handler(payload as never, {
        em: orm.em.fork(),
        publisher,
        effects,
        mediaDir: config.mediaDir,
        media,
        enqueue: (key, payload, options) => followUps.enqueue(key, payload, options),
        feedFetchAllowedIps: config.feedFetchAllowedIps,
        logger,
        imageProxy,
        artwork,
        videoProvider,
        videoWorkDir: config.videoWorkDir,
        demoVideos: config.demoVideos,
        signal: shutdown.signal,
        redis: connection,
        pushSender,
        jobId: job.id ?? '',
        finalAttempt: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
        progress: async (percent) => {
          await job.updateProgress(percent);
          notify(job, key, { state: 'active', progress: percent });
        },
      });
    } catch (error) {
      // A failure retrying cannot fix (JobError final) is not retried; its code travels as the cause.
      if (error instanceof JobError && error.final) {
        throw Object.assign(new UnrecoverableError(error.message), { cause: error });
      }
      throw error;
    }
    // 'completed' only once the result is what the job promised; otherwise the job fails (and retries).
    const valid = def.result.parse(result);
    // What the job changed for others is told only now that it succeeded.
    await effects.publish();
    notify(job, key, { state: 'completed', progress: 100 });
    return valid;
  };

  const workers = config.queues.map((queue) => {
    const worker = new Worker(queue, runJob, {
      connection,
      concurrency: config.concurrency[queue],
      autorun: true,
      // The full recompute has synchronous phases of several seconds at a million people, during
      // which the lock cannot be renewed; a crashed matching worker's job is retried after this.
      lockDuration: queue === QUEUES.matching ? Math.max(MATCHING_LOCK_MS, config.lockMs) : config.lockMs,
      // A job whose worker died is noticed within one lock period and retried (docs/videos.md).
      stalledInterval: Math.min(config.lockMs, 30_000),
    });
    worker.on('failed', (job, error) => {
      if (!job) return;
      const key = jobKeyByName.get(job.name);
      // An UnrecoverableError (e.g. Spotify access revoked: "Reconnect Spotify") is not retried.
      const final = error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
      logger.warn(
        `job ${job.name} ${job.id} failed (attempt ${job.attemptsMade}${final ? ', final' : ''}): ${error.message}`,
        { jobId: job.id, job: job.name },
      );
      if (key && final) notify(job, key, { state: 'failed', progress: 0, error });
    });
    worker.on('error', (error) => logger.error(`queue ${queue} error`, error));
    return worker;
  });

  if (config.queues.includes(QUEUES.matching)) {
    // Rarity weights change as people join: refresh everyone's candidates now and then.
    await followUps.schedule('matchesRecompute', RECOMPUTE_ALL_SCHEDULER, config.recomputeAllEveryMs, { scope: 'all' });
    // Libraries changed since the current model: recompute everyone (bounded by its own cost).
    await followUps.schedule('matchesRecompute', MATCHES_REFRESH_SCHEDULER, config.refreshCheckEveryMs, {
      scope: 'refresh',
    });
  }

  if (config.queues.includes(QUEUES.sync)) {
    await followUps.schedule('reportsExpire', REPORTS_EXPIRE_SCHEDULER, config.reportsExpireEveryMs, {
      olderThanDays: config.reportRetentionDays,
    });
  }

  const beatKeys = [WORKER_HEARTBEAT.key, ...config.queues.map((q) => WORKER_HEARTBEAT.queueKey(q))];
  if (config.demoVideos && config.queues.includes(QUEUES.video)) {
    // Demo people seeded before intros existed, or whose render never got queued (docs/videos.md).
    const queued = await queueDemoIntros(orm.em.fork(), (k, p, o) => followUps.enqueue(k, p, o));
    if (queued > 0) logger.info(`queued ${queued} demo intros in the background`);
  }

  const beat = async () => {
    try {
      const until = Date.now() + WORKER_HEARTBEAT.ttlMs;
      for (const key of beatKeys) {
        await connection.zadd(key, until, id);
        await connection.zremrangebyscore(key, '-inf', Date.now());
      }
    } catch (error) {
      logger.warn(`heartbeat failed: ${(error as Error).message}`);
    }
  };
  await beat();
  const timer = setInterval(beat, WORKER_HEARTBEAT.intervalMs);
  const role = config.queues.map((q) => `${q} x${config.concurrency[q]}`).join(', ');
  logger.info(`worker ${id} consuming ${role}`);

  return {
    id,
    metricsUrl: metricsServer?.url,
    async close() {
      clearInterval(timer);
      await metricsServer?.close();
      // Lets running jobs finish; unfinished ones are picked up again by another worker. Without
      // Redis (stopped in the same shutdown), BullMQ cannot record a finished job and would wait
      // for it until killed: then stop at once; those jobs run again after the restart (handlers are
      // idempotent: a video project is completed once).
      if (await settlesWithRedis(Promise.all(workers.map((w) => w.close())), connection)) {
        shutdown.abort();
        await followUps.close();
        for (const key of beatKeys) await connection.zrem(key, id).catch(() => undefined);
      } else {
        logger.warn('shutdown: Redis is unreachable; the jobs in progress run again after a restart');
        shutdown.abort();
      }
      await metrics.close();
      connection.disconnect();
      await orm.close();
    },
  };
}

/** True once `work` settles; false once Redis has been unreachable for `goneMs` while waiting. */
async function settlesWithRedis(work: Promise<unknown>, redis: Redis, goneMs = 2000): Promise<boolean> {
  let settled = false;
  const done = work.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  let goneSince: number | undefined;
  while (!settled) {
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 250))]);
    if (settled) break;
    if (redis.status === 'ready') goneSince = undefined;
    else {
      goneSince ??= Date.now();
      if (Date.now() - goneSince >= goneMs) return false;
    }
  }
  return true;
}
