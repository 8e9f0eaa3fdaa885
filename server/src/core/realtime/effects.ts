// A request's, socket event's or job's side effects, collected while it works and carried out only
// once it succeeded (docs/architecture.md, "Realtime"): socket events (checked against their schema
// when collected, sent through the RECIPIENTS table), badge pushes, and a kick of the job outbox
// relay for jobs staged in its transactions. A transaction run through `transactional` that rolls
// back takes back what was collected inside it, so a rolled-back write publishes nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServerEventPayload } from '@shared/index';
import type { User } from '../db/entities';
import { toSelfUser } from '../presenters/user.presenter';
import type { Audiences, Outgoing, PublishedEvent, Publisher } from './publisher';

/** What carries out badge pushes and outbox relays (the server's BadgePusher and OutboxRelay). */
export interface EffectSinks {
  publisher: Publisher;
  badges?: { push(...userIds: number[]): void; pushUnread(...userIds: number[]): void };
  outbox?: { relay(): Promise<unknown> };
}

type Effect =
  | { kind: 'event'; outgoing: Outgoing }
  | { kind: 'badges'; userIds: number[]; only: 'all' | 'unread' }
  | { kind: 'relay' }
  | { kind: 'endSessions'; sessionIds: number[]; reason: ServerEventPayload<'session:ended'> };

export class Effects {
  private pending: Effect[] = [];

  constructor(private readonly sinks: EffectSinks) {}

  /** An event to send once this unit of work succeeded; an invalid one throws InvalidEventError now. */
  emit<E extends PublishedEvent>(event: E, payload: ServerEventPayload<E>, about: Audiences[E]): void {
    this.pending.push({ kind: 'event', outgoing: this.sinks.publisher.check({ event, payload, about } as Outgoing) });
  }

  /** The person's own profile as they see it, to every tab of theirs ('user:updated'). */
  userUpdated(user: User): void {
    this.emit('user:updated', toSelfUser(user), { userId: user.id });
  }

  /** Fresh badge counts for these people (all counts, or only the unread-matches ones). */
  pushBadges(userIds: number[], only: 'all' | 'unread' = 'all'): void {
    if (userIds.length > 0) this.pending.push({ kind: 'badges', userIds, only });
  }

  /** Ends every socket of these logins, on every server ('session:ended', then a disconnect). */
  endSessions(sessionIds: number[], reason: ServerEventPayload<'session:ended'>): void {
    if (sessionIds.length > 0) this.pending.push({ kind: 'endSessions', sessionIds, reason });
  }

  /** Jobs were staged in the job outbox: relay them once the transaction committed. */
  relayOutbox(): void {
    this.pending.push({ kind: 'relay' });
  }

  /**
   * `em.transactional(work)`, keeping what `work` collected only if the transaction commits: a
   * rollback (an error thrown through here) takes its events, badge pushes and relays back.
   */
  async transactional<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const mark = this.pending.length;
    try {
      return await em.transactional(work);
    } catch (error) {
      this.pending.length = mark;
      throw error;
    }
  }

  /** Drops everything collected (the unit of work failed). */
  discard(): void {
    this.pending = [];
  }

  /** Carries out everything collected, in order, once; events first, then badges and the relay. */
  async publish(): Promise<void> {
    const done = this.pending;
    this.pending = [];
    let relay = false;
    for (const effect of done) {
      if (effect.kind === 'event') this.sinks.publisher.send(effect.outgoing);
      else if (effect.kind === 'badges') {
        if (effect.only === 'unread') this.sinks.badges?.pushUnread(...effect.userIds);
        else this.sinks.badges?.push(...effect.userIds);
      } else if (effect.kind === 'endSessions') this.sinks.publisher.endSessions(effect.sessionIds, effect.reason);
      else relay = true;
    }
    if (relay) await this.sinks.outbox?.relay();
  }
}
