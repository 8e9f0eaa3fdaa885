// What REST and socket share for chat: send and read receipts, each persisted and committed first,
// then announced through the caller's unit of work (docs/chat.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { chatNotificationTag, type Message } from '@shared/index';
import type { Redis } from 'ioredis';
import { sql } from '../../core/db/sql';
import { stageJob } from '../../core/jobs/outbox';
import { DEMO_CHAT_THINKING_MS } from '../../core/matches/demo-chat';
import type { ServerMetrics } from '../../core/metrics/metrics';
import { pushKeys } from '../../core/notifications/push-state';
import { stagePushes } from '../../core/notifications/stage-push';
import type { Effects } from '../../core/realtime/effects';
import type { RateLimits } from '../../http/rate-limits';
import type { MatchRecord } from '../matches/match.service';
import { markRead, type SendInput, storeMessage } from './message.service';

export class ChatService {
  constructor(
    private readonly deps: {
      limits: RateLimits;
      metrics?: Pick<ServerMetrics, 'messageStored'>;
      /** Where the worker marks conversations whose notification a person's devices show. */
      redis?: Redis;
    },
  ) {}

  /**
   * Sends as `senderId`: the rate limit (429), then the one-transaction store (404 for a match the
   * sender may not see). A new message goes, once the request or socket event succeeded, to both
   * people's rooms (every tab, the sender's other tabs too); a repeated clientId answers the stored
   * message and announces nothing again, so each message reaches each tab once.
   */
  async send(em: EntityManager, effects: Effects, senderId: number, input: SendInput, ip?: string): Promise<Message> {
    await this.deps.limits.take('messages', { user: senderId, ip });
    const stored = await storeMessage(em, senderId, input);
    if (stored.created) {
      this.deps.metrics?.messageStored();
      effects.emit('message:new', stored.message, { senderId, recipientId: stored.recipientId });
      // Badges change only when a match turns unread (or read) for someone; most messages change
      // nothing there, and recomputing badges costs more than the send itself.
      const changed = [
        ...(stored.recipientBecameUnread ? [stored.recipientId] : []),
        ...(stored.senderReadMoved ? [senderId] : []),
      ];
      effects.pushBadges(changed, 'unread');
      await this.letDemoPersonAnswer(em, effects, stored.message.matchId, stored.recipientId);
    }
    return stored.message;
  }

  /** A message to a demo person gets a scripted answer a moment later (core/matches/demo-chat.ts). */
  private async letDemoPersonAnswer(em: EntityManager, effects: Effects, matchId: number, recipientId: number) {
    const [recipient] = await sql<{ is_demo: boolean }>(em, 'select is_demo from users where id = ?', [recipientId]);
    if (!recipient?.is_demo) return;
    const { min, max } = DEMO_CHAT_THINKING_MS;
    await stageJob(
      em,
      'demoChatReply',
      { matchId, demoId: recipientId },
      { delayMs: Math.round(min + Math.random() * (max - min)) },
    );
    effects.relayOutbox();
  }

  /**
   * The reader has read up to `seq` and opened the match: tells both people (receipts; the
   * reader's other tabs) when the read seq moved, and refreshes the reader's badges when their
   * unread mark changed.
   */
  async read(
    em: EntityManager,
    effects: Effects,
    match: MatchRecord,
    readerId: number,
    seq: number,
  ): Promise<MatchRecord> {
    const result = await markRead(em, match, readerId, seq);
    if (result.readMoved) {
      effects.emit(
        'message:read',
        { matchId: match.id, userId: readerId, seq: result.readSeq },
        { userIds: [result.row.user1_id, result.row.user2_id] },
      );
    }
    if (result.changed) effects.pushBadges([readerId], 'unread');
    if (result.readMoved) await this.clearNotificationsElsewhere(em, effects, readerId, match.id);
    return result.row;
  }

  /**
   * A conversation read on one device closes its notification on the person's other devices
   * (docs/notifications.md): only when one was shown since the last read, so most reads cost one
   * Redis call and no job.
   */
  private async clearNotificationsElsewhere(em: EntityManager, effects: Effects, readerId: number, matchId: number) {
    const redis = this.deps.redis;
    if (!redis) return;
    if ((await redis.del(pushKeys.shown(readerId, chatNotificationTag(matchId)))) === 0) return;
    if (await stagePushes(em, [readerId], (userId) => ({ kind: 'clear', userId, matchId }))) effects.relayOutbox();
  }
}
