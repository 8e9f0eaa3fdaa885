import { type JobKey, type JobPayload, jobs } from '@shared/jobs';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** Enqueues jobs from their shared definitions: payload validated, options and dedupe applied. */
export class JobQueue {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly connection: Redis) {}

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection });
      this.queues.set(name, queue);
    }
    return queue;
  }

  async enqueue<K extends JobKey>(key: K, payload: JobPayload<K>): Promise<string> {
    const def = jobs[key];
    const data = def.payload.parse(payload);
    const dedupeId = def.dedupeKey?.(data as never);
    const job = await this.queue(def.queue).add(def.name, data, {
      attempts: def.options.attempts,
      backoff: { type: 'exponential', delay: def.options.backoffMs },
      removeOnComplete: { age: def.options.keepSeconds },
      removeOnFail: { age: def.options.keepSeconds * 24 },
      // While an identical job is waiting or running, a second enqueue returns that job.
      ...(dedupeId ? { deduplication: { id: dedupeId } } : {}),
    });
    return job.id ?? '';
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}
