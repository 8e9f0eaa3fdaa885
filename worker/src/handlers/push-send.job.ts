// One push to a person's devices (docs/notifications.md): checks what they want (kind switches,
// pause, quiet hours in their time zone), what is still true (the match still live, messages still
// unread), skips devices with a focused tab, and sends to the rest. A conversation gets at most one
// notification per cooldown (the burst's grouped one); messages within it are announced once it
// ends; a retry sends only to devices not yet reached; a device whose subscription is gone
// (404/410) is removed.
import { blockedEitherWay, sql } from '@server/core/db/sql';
import { notSuspended } from '@server/core/moderation/standing';
import { inQuietHours, preferencesOf } from '@server/core/notifications/preferences';
import { focusedDevices, pushKeys } from '@server/core/notifications/push-state';
import { chatNotificationTag, displayName, INTENT_INFO, type PushPayload, pushFollowUpDedupeKey } from '@shared/index';
import type { PushOptions } from '../push/push-sender';
import type { JobContext, JobHandler } from './handler';

/**
 * A follow-up for messages within a cooldown runs this long after it ends: never before it, even
 * with the workers' clocks a little apart (BullMQ's delay is the enqueuing process's clock).
 */
const AFTER_COOLDOWN_MARGIN_MS = 1000;
/** At most this many notifications per person per hour, whatever their source. */
export const HOURLY_CAP = 30;
/** Longest a previewed message's text may be in a notification. */
const PREVIEW_CHARS = 120;
/** How long a device keeps a shown notification's "clear it when read elsewhere" mark. */
const SHOWN_TTL_SECONDS = 7 * 24 * 3600;

type Notification = { payload: PushPayload; options: PushOptions };

export const pushSend: JobHandler<'pushSend'> = async (job, ctx) => {
  const sender = ctx.pushSender;
  if (!sender?.enabled) return { sent: 0, skipped: 'push is off' };
  if (job.kind === 'clear') {
    const tag = chatNotificationTag(job.matchId);
    return deliver(ctx, job.userId, {
      payload: { type: 'clear', tag },
      options: { ttlSeconds: 3600, urgency: 'low', topic: tag },
    });
  }
  const preferences = await preferencesOf(ctx.em, job.userId);
  if (preferences.paused) return { sent: 0, skipped: 'paused' };
  if (!preferences[job.kind]) return { sent: 0, skipped: `${job.kind} off` };
  if (inQuietHours(preferences.quietHours, new Date())) return { sent: 0, skipped: 'quiet hours' };

  const notification =
    job.kind === 'videos'
      ? videoReady(job.intent)
      : job.kind === 'matches'
        ? await newMatch(ctx, job.userId, job.matchId)
        : await newMessages(ctx, job.userId, job.matchId, preferences.previews);
  if (!notification) return { sent: 0, skipped: 'no longer true' };
  if (notification.payload.type !== 'show') return { sent: 0 };

  if (job.kind === 'messages') {
    const cooldown = await takeCooldown(ctx, job.userId, notification.payload.tag);
    if (cooldown.heldForMs > 0) {
      // Announced when the cooldown ends, if still unread then: one follow-up per conversation,
      // counting everything unread.
      await ctx.enqueue('pushSend', job, {
        delayMs: cooldown.heldForMs + AFTER_COOLDOWN_MARGIN_MS,
        dedupeId: pushFollowUpDedupeKey(job.userId, job.matchId),
      });
      return { sent: 0, skipped: 'cooldown' };
    }
  }
  const firstRun = (await ctx.redis.exists(pushKeys.delivered(ctx.jobId))) === 0;
  if (firstRun && !(await withinHourlyCap(ctx, job.userId))) return { sent: 0, skipped: 'hourly cap' };
  const result = await deliver(ctx, job.userId, notification);
  if (job.kind === 'messages' && result.sent > 0) {
    await ctx.redis.set(pushKeys.shown(job.userId, notification.payload.tag), '1', 'EX', SHOWN_TTL_SECONDS);
  }
  return result;
};

/**
 * The conversation's cooldown, taken by this job (or already this job's: its retry): `heldForMs` 0.
 * Held by another job (a notification for this conversation went out less than a cooldown ago):
 * how much longer it is held.
 */
async function takeCooldown(ctx: JobContext, userId: number, tag: string): Promise<{ heldForMs: number }> {
  const key = pushKeys.cooldown(userId, tag);
  const cooldownMs = ctx.pushSender.messageCooldownMs;
  // A few tries: the key may expire between the SET that found it and the GET that reads it.
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((await ctx.redis.set(key, ctx.jobId, 'PX', cooldownMs, 'NX')) === 'OK') return { heldForMs: 0 };
    const [[, holder], [, ttl]] = (await ctx.redis.multi().get(key).pttl(key).exec()) as [
      [unknown, string | null],
      [unknown, number],
    ];
    if (holder === ctx.jobId) return { heldForMs: 0 };
    if (holder !== null && ttl > 0) return { heldForMs: ttl };
  }
  return { heldForMs: cooldownMs };
}

async function withinHourlyCap(ctx: JobContext, userId: number): Promise<boolean> {
  const key = `podmatch:push:hourly:${userId}:${Math.floor(Date.now() / 3_600_000)}`;
  const count = await ctx.redis.incr(key);
  if (count === 1) await ctx.redis.expire(key, 3600);
  return count <= HOURLY_CAP;
}

/** Sends to every device of the person without a focused tab that this job has not reached yet. */
async function deliver(ctx: JobContext, userId: number, notification: Notification) {
  const devices = await sql<{ id: number; endpoint: string; p256dh: string; auth: string }>(
    ctx.em,
    'select id, endpoint, p256dh, auth from push_devices where user_id = ? order by id',
    [userId],
  );
  const deliveredKey = pushKeys.delivered(ctx.jobId);
  const done = new Set((await ctx.redis.smembers(deliveredKey)).map(Number));
  const focused =
    notification.payload.type === 'show'
      ? await focusedDevices(
          ctx.redis,
          devices.map((d) => d.id),
        )
      : new Set();
  const targets = devices.filter((d) => !done.has(d.id) && !focused.has(d.id));
  // A repeat of this job's notification (after a crash, below) carries the same id.
  const payload: PushPayload =
    notification.payload.type === 'show'
      ? { ...notification.payload, id: ctx.pushSender!.notificationId(ctx.jobId) }
      : notification.payload;
  const retry: string[] = [];
  let sent = 0;
  await Promise.all(
    targets.map(async (device) => {
      const outcome = await ctx.pushSender!.send(device, payload, notification.options);
      if (outcome.kind === 'sent') {
        sent++;
        await ctx.redis.multi().sadd(deliveredKey, String(device.id)).expire(deliveredKey, 86_400).exec();
        await sql(ctx.em, 'update push_devices set last_used_at = now() where id = ?', [device.id]);
      } else if (outcome.kind === 'gone') {
        ctx.logger.info(`push device ${device.id} removed: its subscription is gone (${outcome.status})`);
        await sql(ctx.em, 'delete from push_devices where id = ?', [device.id]);
      } else if (outcome.kind === 'retry') {
        retry.push(outcome.reason);
      } else {
        ctx.logger.warn(`push to device ${device.id} refused: ${outcome.reason}`);
      }
    }),
  );
  // BullMQ retries with backoff; the devices reached are in deliveredKey and get nothing twice. A
  // worker killed after a device's push service answered but before the record sends to it again
  // (at least once): with the same id, so the device does not alert twice (service-worker/push-handlers.ts).
  if (retry.length > 0) throw new Error(`push to ${retry.length} device(s) will be retried: ${retry[0]}`);
  return { sent };
}

function videoReady(intent: keyof typeof INTENT_INFO): Notification {
  return {
    payload: {
      type: 'show',
      kind: 'videos',
      tag: `video-${intent}`,
      title: 'Your video intro is ready',
      body: `It now plays on your ${INTENT_INFO[intent].label} profile.`,
      url: '/profile',
    },
    options: { ttlSeconds: 24 * 3600, urgency: 'normal', topic: `video-${intent}` },
  };
}

interface LiveMatch {
  other_id: number;
  other_name: string | null;
  profile_name: string | null;
  unread: number;
  last_text: string | null;
}

/** The match as the person sees it now: null once unmatched, blocked or the other suspended. */
async function liveMatch(ctx: JobContext, userId: number, matchId: number): Promise<LiveMatch | null> {
  const [row] = await sql<LiveMatch>(
    ctx.em,
    `select o.id as other_id, o.display_name as other_name, pr.display_name as profile_name,
            case when m.user1_id = ? then m.last_message_seq - m.user1_read_seq
                 else m.last_message_seq - m.user2_read_seq end as unread,
            (select x.content from messages x where x.match_id = m.id and x.sender_id = o.id
              order by x.seq desc limit 1) as last_text
       from matches m
       join users o on o.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
       left join user_profiles pr on pr.user_id = o.id and pr.intent = m.intent
      where m.id = ? and (m.user1_id = ? or m.user2_id = ?)
        and m.mutual_at is not null and m.unmatched_at is null
        and ${notSuspended('o')}
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
    [userId, userId, matchId, userId, userId],
  );
  return row ?? null;
}

async function newMatch(ctx: JobContext, userId: number, matchId: number): Promise<Notification | null> {
  const match = await liveMatch(ctx, userId, matchId);
  if (!match) return null;
  const name = displayName(match.profile_name, match.other_name);
  return {
    payload: {
      type: 'show',
      kind: 'matches',
      tag: `match-${matchId}`,
      title: "It's a match!",
      body: `You and ${name} like each other. Say hi!`,
      url: `/chat/${matchId}`,
    },
    options: { ttlSeconds: 7 * 24 * 3600, urgency: 'normal' },
  };
}

async function newMessages(
  ctx: JobContext,
  userId: number,
  matchId: number,
  previews: boolean,
): Promise<Notification | null> {
  const match = await liveMatch(ctx, userId, matchId);
  // Read meanwhile (on any device): nothing to tell.
  if (!match || match.unread <= 0) return null;
  const name = displayName(match.profile_name, match.other_name);
  const count = match.unread;
  const text = previews && match.last_text ? clip(match.last_text) : null;
  const body = text
    ? count > 1
      ? `${text} (+${count - 1} more)`
      : text
    : count === 1
      ? 'Sent you a message'
      : `Sent you ${count} messages`;
  const tag = chatNotificationTag(matchId);
  return {
    payload: { type: 'show', kind: 'messages', tag, title: name, body, url: `/chat/${matchId}` },
    options: { ttlSeconds: 24 * 3600, urgency: 'high', topic: tag },
  };
}

const clip = (text: string) => (text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text);
