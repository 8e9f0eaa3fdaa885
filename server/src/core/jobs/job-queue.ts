import { type JobKey, type JobPayload, jobs } from '@shared/jobs';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** Enqueues jobs from their shared definitions: payload validated, options and dedupe applied. */
export class JobQueue {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly connection: Redis,
    private readonly options: { confirmOnReplica?: boolean } = {},
  ) {}

  /**
   * With Sentinel (docs/operations.md): resolves once every job queued so far on this connection is on
   * a replica too, so a failover now loses none of them; rejects when a connected replica has not
   * confirmed in time. A primary without replicas has nothing a failover could promote: it resolves.
   */
  async confirmOnReplica(timeoutMs = 1000): Promise<void> {
    if (!this.options.confirmOnReplica) return;
    // WAIT blocks this (shared) connection for its whole timeout when no replica is there: ask first.
    const role = (await this.connection.role()) as unknown[];
    const replicas = Array.isArray(role[2]) ? role[2].length : 0;
    if (replicas === 0) return;
    if ((await this.connection.wait(1, timeoutMs)) >= 1) return;
    throw new Error(`queued jobs not confirmed by a replica within ${timeoutMs} ms`);
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection });
      // Connection errors are the shared connection's, reported once by its owner (watchRedis);
      // without a listener BullMQ prints each one to stderr while Redis is away.
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /**
   * Queues job `key`; with `delayMs`, a worker picks it up no earlier than that many ms from now.
   * `jobId` names the job (a second add with the same id is a no-op); `priority` 1 is the highest,
   * and jobs without one go before all prioritised jobs (background work takes a large number).
   * `dedupeId` replaces the definition's dedupe key (a follow-up that must not fold into the job
   * that queues it).
   */
  async enqueue<K extends JobKey>(
    key: K,
    payload: JobPayload<K>,
    options: { delayMs?: number; jobId?: string; priority?: number; dedupeId?: string } = {},
  ): Promise<string> {
    const def = jobs[key];
    const data = def.payload.parse(payload);
    const dedupeId = options.dedupeId ?? def.dedupeKey?.(data as never);
    const job = await this.queue(def.queue).add(def.name, data, {
      attempts: def.options.attempts,
      backoff: { type: 'exponential', delay: def.options.backoffMs },
      removeOnComplete: { age: def.options.keepSeconds },
      removeOnFail: { age: def.options.keepSeconds * 24 },
      ...(options.delayMs && options.delayMs > 0 ? { delay: Math.round(options.delayMs) } : {}),
      ...(options.jobId ? { jobId: options.jobId } : {}),
      ...(options.priority ? { priority: options.priority } : {}),
      // While an identical job is waiting or running, a second enqueue returns that job; with
      // rerunIfRunning, one added while it runs is kept and queued when the run ends.
      ...(dedupeId
        ? { deduplication: { id: dedupeId, ...(def.rerunIfRunning ? { keepLastIfActive: true } : {}) } }
        : {}),
    });
    return job.id ?? '';
  }

  /**
   * Runs job `key` with this payload every `everyMs` (a BullMQ job scheduler, stored in Redis, so
   * any number of workers upserting it at boot still gives one schedule). `everyMs` 0 removes it.
   */
  async schedule<K extends JobKey>(key: K, schedulerId: string, everyMs: number, payload: JobPayload<K>) {
    const def = jobs[key];
    const queue = this.queue(def.queue);
    if (everyMs <= 0) {
      await queue.removeJobScheduler(schedulerId);
      return;
    }
    await queue.upsertJobScheduler(
      schedulerId,
      { every: everyMs },
      {
        name: def.name,
        data: def.payload.parse(payload),
        opts: {
          attempts: def.options.attempts,
          backoff: { type: 'exponential', delay: def.options.backoffMs },
          removeOnComplete: { age: def.options.keepSeconds },
          removeOnFail: { age: def.options.keepSeconds * 24 },
        },
      },
    );
  }

  /** The schedule of `schedulerId` on the queue of job `key`, if any (health and tests). */
  async scheduleOf(key: JobKey, schedulerId: string) {
    // The list reads the schedulers' index; a single lookup still answers (empty) for a removed one.
    const all = await this.queue(jobs[key].queue).getJobSchedulers();
    return all.find((s) => s.key === schedulerId);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
