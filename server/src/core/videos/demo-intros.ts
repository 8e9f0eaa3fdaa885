import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AI_VIDEO_MATCH_PERCENTAGE, BACKGROUND_JOB_PRIORITY, type Intent } from '@shared/index';
import { sql } from '../db/sql';
import type { JobQueue } from '../jobs/job-queue';

/**
 * Gives demo people a generated intro for their current intent in the background (docs/video.md),
 * so a fresh install's feed plays videos: once per person and intent (never again after a project
 * existed, whatever its outcome), only for people with a picture and a visible podcast, at the
 * lowest priority so nobody's own video waits behind them. `userIds` limits it to those people.
 * Answers how many were queued.
 */
export async function queueDemoIntros(
  em: EntityManager,
  enqueue: JobQueue['enqueue'],
  userIds?: number[],
): Promise<number> {
  const candidates = await sql<{ id: number; intent: Intent }>(
    em,
    `select u.id, u.intent from users u
       join user_profiles pr on pr.user_id = u.id and pr.intent = u.intent
      where u.is_demo and u.profile_picture is not null and pr.video_intro_url is null
        ${userIds ? 'and u.id = any(?::int[])' : ''}
        and exists (select 1 from user_podcasts up where up.user_id = u.id and not up.hidden)
        and not exists (select 1 from video_intros v where v.user_id = u.id and v.intent = u.intent)
      order by u.id`,
    userIds ? [`{${userIds.map((id) => Math.trunc(id)).join(',')}}`] : [],
  );
  let queued = 0;
  for (const { id, intent } of candidates) {
    const projectId = randomUUID();
    const inserted = await sql(
      em,
      `insert into video_intros (id, user_id, intent, source, status, progress, match_percentage)
       select ?, ?, ?, 'generated', 'queued', 0, ?
        where not exists (select 1 from video_intros v where v.user_id = ? and v.intent = ?)
       on conflict (user_id, intent) where status not in ('completed', 'failed') do nothing
       returning id`,
      [projectId, id, intent, AI_VIDEO_MATCH_PERCENTAGE, id, intent],
    );
    if (inserted.length === 0) continue;
    await enqueue(
      'videoRender',
      { projectId, userId: id, intent },
      { jobId: projectId, priority: BACKGROUND_JOB_PRIORITY },
    );
    queued++;
  }
  return queued;
}
