// Badge counts (feed per intent, unread matches per intent), pushed to `user:{id}` on change.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { type BadgeCounts, INTENTS, type Intent } from '@shared/index';
import type { Logger } from '../../core/logger';
import type { Publisher } from '../../core/realtime/publisher';
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

/** What to recompute: everything, or only the unread-matches counts (a message or a read changed them). */
type BadgeKind = 'full' | 'unread';

/**
 * Recomputes and pushes users' badges after a change is committed. Bursts coalesce: per user at
 * most one computation runs, and changes that arrive meanwhile cause exactly one more, so a person
 * firing hundreds of likes costs a few badge queries, not hundreds. Messages and reads only move
 * the unread counts: `pushUnread` recomputes just those (one query) and sends 'badges:unread'. A
 * full push covers an unread one. Never throws.
 */
export class BadgePusher {
  /** Users with a computation running, and what to recompute once it ends (a change arrived meanwhile). */
  private readonly running = new Map<number, BadgeKind | null>();
  private readonly waiters: (() => void)[] = [];

  constructor(private readonly deps: { orm: MikroORM; publisher: Publisher; logger: Logger }) {}

  push(...userIds: number[]): void {
    this.request(userIds, 'full');
  }

  pushUnread(...userIds: number[]): void {
    this.request(userIds, 'unread');
  }

  /** Resolves once no computation is running (shutdown waits for it before closing the database). */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private request(userIds: number[], kind: BadgeKind): void {
    for (const userId of new Set(userIds)) {
      if (!this.running.has(userId)) {
        this.running.set(userId, null);
        void this.run(userId, kind);
      } else if (this.running.get(userId) !== 'full') this.running.set(userId, kind);
    }
  }

  private async run(userId: number, kind: BadgeKind): Promise<void> {
    try {
      const em = this.deps.orm.em.fork();
      if (kind === 'full') this.deps.publisher.emit('badges:update', await badgesFor(em, userId), { userId });
      else
        this.deps.publisher.emit('badges:unread', { unreadMatches: await unreadMatchCounts(em, userId) }, { userId });
    } catch (error) {
      this.deps.logger.warn(`badges not pushed to user ${userId}: ${(error as Error).message}`);
    }
    const next = this.running.get(userId);
    this.running.delete(userId);
    if (next) this.request([userId], next);
    else if (this.running.size === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }
}
