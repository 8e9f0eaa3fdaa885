// Badge counts (feed per intent, unread matches per intent), pushed to `user:{id}` on change.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type BadgeCounts, INTENTS, type Intent, rooms } from '@shared/index';
import type { Logger } from '../../core/logger';
import type { RealtimeEmitter } from '../../core/realtime/emitter';
import { ensureComputed, feedCountsFor, loadViewer } from '../feed/feed.service';
import { unreadMatchCounts } from './match.service';

const zeros = () => Object.fromEntries(INTENTS.map((intent) => [intent, 0])) as Record<Intent, number>;

export async function badgesFor(em: EntityManager, userId: number): Promise<BadgeCounts> {
  const viewer = await loadViewer(em, userId);
  if (!viewer) return { feed: zeros(), unreadMatches: zeros() };
  await ensureComputed(em, viewer);
  const [feed, unreadMatches] = await Promise.all([feedCountsFor(em, viewer), unreadMatchCounts(em, userId)]);
  return { feed, unreadMatches };
}

/** Recomputes and pushes the badges of these users, after the change is committed. Never throws. */
export async function pushBadges(
  deps: { orm: MikroORM; emitter: RealtimeEmitter; logger: Logger },
  userIds: number[],
): Promise<void> {
  for (const userId of new Set(userIds)) {
    try {
      const counts = await badgesFor(deps.orm.em.fork(), userId);
      deps.emitter.to(rooms.user(userId)).emit('badges:update', counts);
    } catch (error) {
      deps.logger.warn(`badges not pushed to user ${userId}: ${(error as Error).message}`);
    }
  }
}
