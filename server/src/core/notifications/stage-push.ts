import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobPayload } from '@shared/jobs';
import { sql } from '../db/sql';
import { stageJob } from '../jobs/outbox';

/**
 * Stages a push (docs/notifications.md) in the transaction of the change that causes it, for those
 * of `userIds` who have a device (nobody else costs a job). New messages stage theirs in the
 * database itself (Migration20261127150000). Answers whether anything was staged (relay after commit).
 */
export async function stagePushes(
  em: EntityManager,
  userIds: number[],
  payloadFor: (userId: number) => JobPayload<'pushSend'>,
): Promise<boolean> {
  if (userIds.length === 0) return false;
  const rows = await sql<{ user_id: number }>(
    em,
    'select distinct user_id from push_devices where user_id = any(?::int[])',
    [`{${userIds.join(',')}}`],
  );
  for (const row of rows) await stageJob(em, 'pushSend', payloadFor(row.user_id));
  return rows.length > 0;
}
