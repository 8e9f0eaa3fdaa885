// Jobs that cannot be lost (docs/operations.md): a job is written to `job_outbox` in the same
// transaction as the change that needs it, and the relay queues it in Redis afterwards. If Redis
// fails between the commit and the enqueue, the row waits and the relay queues it once Redis is
// back; nothing is lost. Each staged job has its BullMQ job id from the start (`outbox-<row id>`
// unless the caller names one), so a relay that crashes after queueing and before deleting the
// row queues it again as a no-op.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type JobKey, type JobPayload, jobs } from '@shared/jobs';
import type { JobOutboxSchema } from '../db/entities';
import { type RowOf, sql } from '../db/sql';
import type { Logger } from '../logger';
import type { JobQueue } from './job-queue';

export interface StageOptions {
  delayMs?: number;
  jobId?: string;
  priority?: number;
}

/**
 * Writes job `key` with this payload into the outbox on `em`'s connection: inside
 * `em.transactional(tx => ...)` pass `tx`, and the job commits (or rolls back) with the change.
 * Returns its BullMQ job id (for progress events the client follows).
 */
export async function stageJob<K extends JobKey>(
  em: EntityManager,
  key: K,
  payload: JobPayload<K>,
  options: StageOptions = {},
): Promise<string> {
  const data = jobs[key].payload.parse(payload);
  const [row] = await sql<{ job_id: string }>(
    em,
    `with next as (select nextval(pg_get_serial_sequence('job_outbox', 'id')) as id)
     insert into job_outbox (id, job_key, job_id, payload, options)
     select id, ?, coalesce(?, 'outbox-' || id), ?::jsonb, ?::jsonb from next
     returning job_id`,
    [key, options.jobId ?? null, JSON.stringify(data), JSON.stringify({ ...options, jobId: undefined })],
  );
  if (!row) throw new Error('the outbox row was not written');
  return row.job_id;
}

const BATCH = 100;
const POLL_MS = 1000;
const MAX_BACKOFF_MS = 10_000;

type OutboxRow = Pick<RowOf<typeof JobOutboxSchema>, 'id' | 'job_key' | 'job_id' | 'payload' | 'options'>;

/**
 * Queues what the outbox holds: at once when kicked after a commit, and every second in case a kick
 * was missed or Redis was down. Several processes relay safely side by side (rows are locked with
 * SKIP LOCKED); a failure leaves the rows for the next round, after a growing pause.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private failures = 0;

  constructor(
    private readonly orm: MikroORM,
    private readonly queue: JobQueue,
    private readonly logger: Logger,
  ) {}

  start(): this {
    this.schedule(POLL_MS);
    return this;
  }

  /** Relays now (after a commit that staged jobs); coalesces with a round already running. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.kick();
      }
    });
  }

  /**
   * Relays now and waits for it, at most `maxWaitMs`: a request that staged jobs answers once they
   * are queued (its client may follow them at once), but never waits long on a Redis that is away;
   * the rows are relayed later then.
   */
  async relay(maxWaitMs = 250): Promise<void> {
    this.kick();
    const deadline = Date.now() + maxWaitMs;
    // A round already running when kicked is followed by another (`again`): wait for both.
    while (this.running && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => {
        timer = setTimeout(resolve, deadline - Date.now());
      });
      await Promise.race([this.running, timeout]);
      clearTimeout(timer);
    }
  }

  /** Waits for the round in progress; no new round starts. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Every job staged so far relayed (tests and shutdown). */
  async flush(): Promise<void> {
    for (;;) {
      await this.running;
      const [row] = await sql<{ n: number }>(this.orm.em.fork(), 'select count(*)::int as n from job_outbox');
      if (!row?.n) return;
      this.kick();
      await this.running;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.kick();
      void this.running?.finally(() => this.schedule(this.pause()));
    }, ms);
    this.timer.unref();
  }

  private pause(): number {
    return this.failures === 0 ? POLL_MS : Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** this.failures);
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const relayed = await this.orm.em.fork().transactional(async (tx) => {
          const rows = await sql<OutboxRow>(
            tx,
            `select id, job_key, job_id, payload, options from job_outbox
              order by id limit ? for update skip locked`,
            [BATCH],
          );
          for (const row of rows) {
            await this.queue.enqueue(row.job_key, row.payload as never, { ...row.options, jobId: row.job_id });
          }
          // The rows go only once Redis cannot lose the jobs to a failover (a second add is a no-op).
          if (rows.length > 0) await this.queue.confirmOnReplica();
          if (rows.length > 0)
            await sql(tx, 'delete from job_outbox where id = any(?::bigint[])', [
              `{${rows.map((r) => r.id).join(',')}}`,
            ]);
          return rows.length;
        });
        if (this.failures > 0) this.logger.info(`outbox relay: queueing again (${relayed} jobs)`);
        this.failures = 0;
        if (relayed < BATCH) return;
      }
    } catch (error) {
      this.failures++;
      if (this.failures === 1 || this.failures % 10 === 0) {
        this.logger.warn(`outbox relay: jobs wait in the database (${(error as Error).message})`);
      }
    }
  }
}
