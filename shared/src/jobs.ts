import { z } from 'zod';
import { IntentSchema } from './schemas/common';

export interface JobOptions {
  attempts: number;
  backoffMs: number;
  /** Remove finished jobs after this many seconds so Redis does not grow. */
  keepSeconds: number;
}

export interface JobDefinition<
  Name extends string = string,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  name: Name;
  queue: string;
  payload: P;
  result: R;
  options: JobOptions;
  /** While a job with the same key is waiting or running, enqueueing it again is a no-op. */
  dedupeKey?: (payload: z.output<P>) => string | undefined;
  /**
   * With dedupeKey: an enqueue while that job is already running is not dropped but kept (one, the
   * latest) and queued once the run ends, for work whose input may have changed after the run read
   * it. At most one running and one waiting per key.
   */
  rerunIfRunning?: boolean;
  /** The user whose room receives this job's status events (undefined: nobody's). */
  notifyUser?: (payload: z.output<P>) => number | undefined;
}

export function defineJob<Name extends string, P extends z.ZodType, R extends z.ZodType>(
  def: Omit<JobDefinition<Name, P, R>, 'options'> & { options?: Partial<JobOptions> },
): JobDefinition<Name, P, R> {
  return { ...def, options: { attempts: 3, backoffMs: 1000, keepSeconds: 3600, ...def.options } };
}

export const QUEUES = { media: 'media', sync: 'sync', matching: 'matching', video: 'video', push: 'push' } as const;

/** Video intro jobs: a project id (the video_intros row) for one person and intent. */
const VideoProjectJobSchema = z.object({
  projectId: z.uuid(),
  userId: z.number().int().positive(),
  intent: IntentSchema,
});

export const jobs = {
  /** Renders the letter avatar for a user (their initial on their intent's colours). */
  avatarGenerate: defineJob({
    name: 'avatar.generate',
    queue: QUEUES.media,
    payload: z.object({ userId: z.number().int().positive() }),
    result: z.object({ profilePicture: z.string() }),
    dedupeKey: (p) => `avatar.generate:${p.userId}`,
    notifyUser: (p) => p.userId,
  }),
  /**
   * Refreshes podcasts from their source: a user's Spotify library (saved shows and episodes), or
   * the RSS feeds of the given podcasts (after an OPML import). Progress goes to the user's room.
   */
  podcastsSync: defineJob({
    name: 'podcasts.sync',
    queue: QUEUES.sync,
    payload: z.discriminatedUnion('source', [
      z.object({ source: z.literal('spotify'), userId: z.number().int().positive() }),
      z.object({
        source: z.literal('rss'),
        userId: z.number().int().positive(),
        podcastIds: z.array(z.number().int().positive()).max(2000),
      }),
    ]),
    result: z.object({ podcasts: z.number().int(), failed: z.number().int() }),
    options: { attempts: 5, backoffMs: 2000 },
    dedupeKey: (p) => (p.source === 'spotify' ? `podcasts.sync:spotify:${p.userId}` : undefined),
    notifyUser: (p) => p.userId,
  }),
  /**
   * Recomputes precomputed feed candidates (docs/matching.md): one user's after their library or
   * visibility changes, or everyone's (periodic refresh of rarity weights).
   */
  matchesRecompute: defineJob({
    name: 'matches.recompute',
    queue: QUEUES.matching,
    payload: z.discriminatedUnion('scope', [
      z.object({ scope: z.literal('user'), userId: z.number().int().positive() }),
      z.object({ scope: z.literal('all') }),
      /** Recompute everyone only if libraries changed since the current model (docs/matching.md). */
      z.object({ scope: z.literal('refresh') }),
    ]),
    result: z.object({ users: z.number().int(), rows: z.number().int() }),
    options: { attempts: 3, backoffMs: 2000 },
    dedupeKey: (p) => (p.scope === 'user' ? `matches.recompute:${p.userId}` : `matches.recompute:${p.scope}`),
    // The person whose feed it was: their screens read the feed again (it stays true without a reload).
    notifyUser: (p) => (p.scope === 'user' ? p.userId : undefined),
    // Library edits come in bursts: one queued recompute per person, and an edit made while one
    // runs (which may have read the library before it) gets one more after it.
    rerunIfRunning: true,
  }),
  /**
   * A demo person (not the SPEC demo user) answers a like, some time after it (docs/matches.md, "Demo
   * people"): likes back with a probability that grows with the match %, drawn once per pair and
   * intent. Runs on the media queue (short jobs), delayed when enqueued.
   */
  demoLikeBack: defineJob({
    name: 'demo.likeBack',
    queue: QUEUES.media,
    payload: z.object({
      demoId: z.number().int().positive(),
      likerId: z.number().int().positive(),
      intent: IntentSchema,
    }),
    result: z.object({ likedBack: z.boolean(), mutual: z.boolean() }),
    options: { attempts: 3, backoffMs: 2000 },
    dedupeKey: (p) => `demo.likeBack:${p.demoId}:${p.likerId}:${p.intent}`,
  }),
  /**
   * A demo person answers the chat of a match with them (docs/matches.md, "Demo people"): the typing
   * indicator, then a scripted line naming a show the two share; a few exchanges, then a goodbye.
   * Staged when a person writes to a demo person, never for real people.
   */
  demoChatReply: defineJob({
    name: 'demo.chatReply',
    queue: QUEUES.media,
    payload: z.object({ matchId: z.number().int().positive(), demoId: z.number().int().positive() }),
    result: z.object({ replied: z.boolean() }),
    options: { attempts: 2, backoffMs: 2000 },
    // Several messages in a row get one answer; one written while the demo person types, another.
    dedupeKey: (p) => `demo.chatReply:${p.matchId}`,
    rerunIfRunning: true,
  }),
  /**
   * Deletes reports (with their kept messages) made more than `olderThanDays` ago: the retention
   * period of docs/privacy.md ("Reports"). Scheduled by the workers of the sync queue.
   */
  reportsExpire: defineJob({
    name: 'reports.expire',
    queue: QUEUES.sync,
    payload: z.object({ olderThanDays: z.number().int().min(1).max(3650) }),
    result: z.object({ deleted: z.number().int() }),
    dedupeKey: () => 'reports.expire',
  }),
  /**
   * Renders a generated video intro (docs/videos.md) from the person's profile for one intent:
   * vertical H.264 MP4 with a poster, then it becomes that intent's video. The BullMQ job id is
   * the project id; one active render per person and intent.
   */
  videoRender: defineJob({
    name: 'video.render',
    queue: QUEUES.video,
    payload: VideoProjectJobSchema,
    result: z.object({ url: z.string(), posterUrl: z.string() }),
    options: { attempts: 3, backoffMs: 2000 },
    dedupeKey: (p) => `video.render:${p.userId}:${p.intent}`,
    notifyUser: (p) => p.userId,
  }),
  /** Transcodes an uploaded video (docs/videos.md) to web-optimised vertical H.264 MP4 plus a poster. */
  mediaTranscode: defineJob({
    name: 'media.transcode',
    queue: QUEUES.video,
    payload: VideoProjectJobSchema,
    result: z.object({ url: z.string(), posterUrl: z.string() }),
    options: { attempts: 3, backoffMs: 2000 },
    dedupeKey: (p) => `media.transcode:${p.projectId}`,
    notifyUser: (p) => p.userId,
  }),
  /**
   * Pushes a notification to a person's devices while the app is closed (docs/notifications.md):
   * a new mutual match, new messages in a conversation (grouped: every message of a burst lands in
   * the one delayed job of its conversation), a finished video intro; `clear` closes a
   * conversation's notification on their devices after they read it on one. The worker checks
   * preferences, quiet hours and focused tabs when it runs.
   */
  pushSend: defineJob({
    name: 'push.send',
    queue: QUEUES.push,
    payload: z.discriminatedUnion('kind', [
      z.object({
        kind: z.enum(['matches', 'messages', 'clear']),
        userId: z.number().int().positive(),
        matchId: z.number().int().positive(),
      }),
      z.object({ kind: z.literal('videos'), userId: z.number().int().positive(), intent: IntentSchema }),
    ]),
    result: z.object({ sent: z.number().int(), skipped: z.string().optional() }),
    options: { attempts: 5, backoffMs: 2000 },
    dedupeKey: (p) =>
      p.kind === 'videos' ? `push.send:videos:${p.userId}:${p.intent}` : `push.send:${p.kind}:${p.userId}:${p.matchId}`,
    // A message stored while its conversation's job runs (after it counted what is unread) gets a
    // job of its own once that run ends, rather than folding into a run that cannot see it.
    rerunIfRunning: true,
  }),
} as const;

/**
 * The dedupe key of a conversation's follow-up push (push.send, kind `messages`) at the end of its
 * cooldown: not the job's own key, which the job that queues it still holds.
 */
export const pushFollowUpDedupeKey = (userId: number, matchId: number) =>
  `push.send:messages-after-cooldown:${userId}:${matchId}`;

export type Jobs = typeof jobs;
export type JobKey = keyof Jobs;
export type JobPayload<K extends JobKey> = z.output<Jobs[K]['payload']>;
export type JobResult<K extends JobKey> = z.output<Jobs[K]['result']>;
export type JobName = Jobs[JobKey]['name'];

/**
 * Worker liveness: each worker process keeps its id in this Redis sorted set, scored with the
 * time its heartbeat expires; health counts members whose score is still in the future.
 */
export const WORKER_HEARTBEAT = {
  key: 'podmatch:workers',
  /** The same per queue: which workers serve it (e.g. the video service status). */
  queueKey: (queue: string) => `podmatch:workers:${queue}`,
  intervalMs: 5000,
  ttlMs: 15_000,
} as const;

/** Priority of background renders (demo people's intros): after every job a person is waiting for. */
export const BACKGROUND_JOB_PRIORITY = 1000;
