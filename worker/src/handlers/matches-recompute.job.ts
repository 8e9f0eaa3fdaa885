import { recomputeAll, recomputeUser, refreshIfStale } from '@server/core/matching/precompute';
import type { JobHandler } from './handler';

/**
 * Refreshes precomputed feed candidates: for one user (their library changed), for everyone
 * (the periodic full recompute), or for everyone only when libraries changed since the current
 * model (the frequent freshness check). docs/matching.md.
 */
export const matchesRecompute: JobHandler<'matchesRecompute'> = async (payload, ctx) => {
  const log = (line: string) => ctx.logger.info(`matches.recompute: ${line}`);
  if (payload.scope === 'user') return recomputeUser(ctx.em, payload.userId);
  if (payload.scope === 'all') return recomputeAll(ctx.em, log);
  const { users, rows } = await refreshIfStale(ctx.em, log);
  return { users, rows };
};
