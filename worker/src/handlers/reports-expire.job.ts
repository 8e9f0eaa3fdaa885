import { expireReports } from '@server/core/reports/retention';
import type { JobHandler } from './handler';

/** Deletes reports past their retention period (docs/privacy.md, "Reports"). */
export const reportsExpire: JobHandler<'reportsExpire'> = async ({ olderThanDays }, ctx) => {
  const deleted = await expireReports(ctx.em, olderThanDays);
  if (deleted > 0) ctx.logger.info(`reports.expire: deleted ${deleted} reports older than ${olderThanDays} days`);
  return { deleted };
};
