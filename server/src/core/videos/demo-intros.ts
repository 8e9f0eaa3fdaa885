import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AI_VIDEO_MATCH_PERCENTAGE, BACKGROUND_JOB_PRIORITY, type Intent } from '@shared/index';
import { sql } from '../db/sql';
import type { JobQueue } from '../jobs/job-queue';

/**
 * Gives demo people a generated intro for each intent they appear in, in the background
 * (docs/videos.md), so a fresh install's feeds play videos: once per person and intent (never again
 * after a project existed, whatever its outcome), only for people with a picture and a visible
 * podcast, at the lowest priorities so nobody's own video waits behind them (their current intent
 * first, then the others). `userIds` limits it to those people. Answers how many were queued.
 */
export async function queueDemoIntros(
  em: EntityManager,
  enqueue: JobQueue['enqueue'],
  userIds?: number[],
): Promise<number> {
  const candidates = await sql<{ id: number; intent: Intent; is_current: boolean }>(
    em,
    `select u.id, pr.intent, (pr.intent = u.intent) as is_current from users u
       join user_profiles pr on pr.user_id = u.id and pr.active
      where u.is_demo and u.profile_picture is not null and pr.video_intro_url is null
        ${userIds ? 'and u.id = any(?::int[])' : ''}
        and exists (select 1 from user_podcasts up where up.user_id = u.id and not up.hidden)
        and not exists (select 1 from video_intros v where v.user_id = u.id and v.intent = pr.intent)
      order by pr.intent = u.intent desc, u.id, pr.intent`,
    userIds ? [`{${userIds.map((id) => Math.trunc(id)).join(',')}}`] : [],
  );
  let queued = 0;
  for (const { id, intent, is_current: current } of candidates) {
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
      { jobId: projectId, priority: current ? BACKGROUND_JOB_PRIORITY : BACKGROUND_JOB_PRIORITY + 1 },
    );
    queued++;
  }
  return queued;
}
