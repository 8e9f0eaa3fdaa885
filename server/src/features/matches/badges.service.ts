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
  const feed = await feedCountsFor(em, viewer);
  const unreadMatches = await unreadMatchCounts(em, userId);
  return { feed, unreadMatches };
}

/**
 * Recomputes and pushes users' badges after a change is committed. Bursts coalesce: per user at
 * most one computation runs, and changes that arrive meanwhile cause exactly one more, so a person
 * firing hundreds of likes costs a few badge queries, not hundreds. Never throws.
 */
export class BadgePusher {
  /** Users with a computation running; true when another change arrived since it started. */
  private readonly running = new Map<number, boolean>();
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly deps: { orm: MikroORM; emitter: RealtimeEmitter; logger: Logger }) {}

  push(...userIds: number[]): void {
    for (const userId of new Set(userIds)) {
      if (this.running.has(userId)) this.running.set(userId, true);
      else {
        this.running.set(userId, false);
        void this.run(userId);
      }
    }
  }

  /** Resolves once no computation is running (shutdown waits for it before closing the database). */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async run(userId: number): Promise<void> {
    try {
      const counts = await badgesFor(this.deps.orm.em.fork(), userId);
      this.deps.emitter.to(rooms.user(userId)).emit('badges:update', counts);
    } catch (error) {
      this.deps.logger.warn(`badges not pushed to user ${userId}: ${(error as Error).message}`);
    }
    const changedMeanwhile = this.running.get(userId);
    this.running.delete(userId);
    if (changedMeanwhile) this.push(userId);
    else if (this.running.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }
}
