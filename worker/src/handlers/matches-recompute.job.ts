import { recomputeAll, recomputeUser } from '@server/core/matching/precompute';
import type { JobHandler } from './handler';

/** Refreshes precomputed feed candidates for one user, or for everyone (docs/matching.md). */
export const matchesRecompute: JobHandler<'matchesRecompute'> = (payload, ctx) =>
  payload.scope === 'user'
    ? recomputeUser(ctx.em, payload.userId)
    : recomputeAll(ctx.em, (line) => ctx.logger.info(`matches.recompute: ${line}`));
