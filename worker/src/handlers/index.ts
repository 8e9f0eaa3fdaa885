import { type JobKey, jobs } from '@shared/index';
import { avatarGenerate } from './avatar-generate.job';
import { demoChatReply } from './demo-chat-reply.job';
import { demoLikeBack } from './demo-like-back.job';
import type { JobHandler } from './handler';
import { matchesRecompute } from './matches-recompute.job';
import { mediaTranscode } from './media-transcode.job';
import { podcastsSync } from './podcasts-sync.job';
import { pushSend } from './push-send.job';
import { reportsExpire } from './reports-expire.job';
import { videoRender } from './video-render.job';

/** One handler per shared job definition: leaving one out is a compile error. */
export const handlers: { [K in JobKey]: JobHandler<K> } = {
  avatarGenerate,
  podcastsSync,
  matchesRecompute,
  demoLikeBack,
  demoChatReply,
  videoRender,
  mediaTranscode,
  reportsExpire,
  pushSend,
};

/** Job name (as stored in BullMQ) to definition key. */
export const jobKeyByName = new Map<string, JobKey>(
  (Object.keys(jobs) as JobKey[]).map((key) => [jobs[key].name, key]),
);

/** Boot-time check, for definitions added without a rebuild of the map's type. */
export function assertHandlersCoverJobs(): void {
  const missing = (Object.keys(jobs) as JobKey[]).filter((key) => typeof handlers[key] !== 'function');
  if (missing.length > 0) throw new Error(`No worker handler for job(s): ${missing.join(', ')}`);
}
