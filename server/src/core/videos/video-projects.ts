// Video intro projects (docs/videos.md), shared by the server (create, read) and the worker (stages,
// completion). Rows are the source of truth for status: polling reads them, the socket pushes them.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  INTENTS,
  type Intent,
  JOB_ERROR_TEXTS,
  type VideoIntrosResponse,
  type VideoProject,
  type VideoSource,
  type VideoStatusValue,
} from '@shared/index';
import type { VideoIntroSchema } from '../db/entities';
import { type RowOf, sql } from '../db/sql';
import type { MediaStore } from '../media';
import { stagePushes } from '../notifications/stage-push';

/** A `video_intros` row as stored. */
export type VideoProjectRow = RowOf<typeof VideoIntroSchema>;

const UNFINISHED = `status not in ('completed', 'failed')`;

/** The user-facing text of a failed project's code. */
function errorText(row: VideoProjectRow): string | null {
  if (row.status !== 'failed') return null;
  const texts: Record<string, string> = JOB_ERROR_TEXTS[row.source === 'upload' ? 'media.transcode' : 'video.render'];
  return texts[row.error_code ?? 'unknown'] ?? texts.unknown ?? 'Video generation failed';
}

export function toVideoProject(row: VideoProjectRow, media: MediaStore): VideoProject {
  const done = row.status === 'completed';
  return {
    projectId: row.id,
    intent: row.intent,
    source: row.source,
    status: row.status,
    progress: row.progress,
    url: done && row.video_key ? media.url(row.video_key) : null,
    posterUrl: done && row.poster_key ? media.url(row.poster_key) : null,
    error: errorText(row),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export async function findProject(em: EntityManager, projectId: string): Promise<VideoProjectRow | null> {
  const [row] = await sql<VideoProjectRow>(em, 'select * from video_intros where id = ?', [projectId]);
  return row ?? null;
}

/**
 * Starts a project for (user, intent), or answers the unfinished one that already exists (the
 * partial unique index keeps one per person and intent, so concurrent requests agree on one).
 * `created` says whether this call made it (only then is a job enqueued and a source stored).
 */
export async function createProject(
  em: EntityManager,
  input: { userId: number; intent: Intent; source: VideoSource; matchPercentage: number; sourceKey?: string },
): Promise<{ row: VideoProjectRow; created: boolean }> {
  const id = randomUUID();
  const inserted = await sql<VideoProjectRow>(
    em,
    `insert into video_intros (id, user_id, intent, source, status, progress, match_percentage, source_key)
     values (?, ?, ?, ?, 'queued', 0, ?, ?)
     on conflict (user_id, intent) where ${UNFINISHED} do nothing
     returning *`,
    [id, input.userId, input.intent, input.source, input.matchPercentage, input.sourceKey ?? null],
  );
  if (inserted[0]) return { row: inserted[0], created: true };
  const [existing] = await sql<VideoProjectRow>(
    em,
    `select * from video_intros where user_id = ? and intent = ? and ${UNFINISHED}`,
    [input.userId, input.intent],
  );
  // It finished between the two statements: try once more (a new project is then allowed).
  if (!existing) return createProject(em, input);
  return { row: existing, created: false };
}

/** Moves an unfinished project to a stage; a finished one is never moved back. Answers the row. */
export async function setStage(
  em: EntityManager,
  projectId: string,
  status: Exclude<VideoStatusValue, 'completed' | 'failed'>,
  progress: number,
): Promise<VideoProjectRow | null> {
  const [row] = await sql<VideoProjectRow>(
    em,
    `update video_intros set status = ?, progress = greatest(progress, ?), updated_at = now()
     where id = ? and ${UNFINISHED} returning *`,
    [status, Math.round(progress), projectId],
  );
  return row ?? null;
}

export async function failProject(em: EntityManager, projectId: string, code: string): Promise<VideoProjectRow | null> {
  const [row] = await sql<VideoProjectRow>(
    em,
    `update video_intros set status = 'failed', error_code = ?, updated_at = now()
     where id = ? and ${UNFINISHED} returning *`,
    [code, projectId],
  );
  return row ?? null;
}

/**
 * Applies a finished video to the person's profile for the project's intent, exactly once: the
 * project row is locked, and a second completion (a retried job whose first run finished after all)
 * changes nothing and answers `applied: false` so the caller deletes its duplicate files. The
 * files the profile showed before are answered for deletion after commit.
 */
export async function completeProject(
  em: EntityManager,
  media: MediaStore,
  projectId: string,
  result: { videoKey: string; posterKey: string },
): Promise<{ applied: boolean; row: VideoProjectRow; replacedKeys: string[] }> {
  return em.transactional(async (tx) => {
    const [row] = await sql<VideoProjectRow>(tx, 'select * from video_intros where id = ? for update', [projectId]);
    if (!row) throw new Error(`video project ${projectId} is gone`);
    if (row.status === 'completed' || row.status === 'failed') return { applied: false, row, replacedKeys: [] };
    const [previous] = await sql<{ video_intro_url: string | null; video_poster_url: string | null }>(
      tx,
      'select video_intro_url, video_poster_url from user_profiles where user_id = ? and intent = ? for update',
      [row.user_id, row.intent],
    );
    const url = media.url(result.videoKey);
    const posterUrl = media.url(result.posterKey);
    await sql(
      tx,
      `insert into user_profiles (user_id, intent, video_intro_url, video_poster_url, active) values (?, ?, ?, ?, true)
       on conflict (user_id, intent) do update set video_intro_url = excluded.video_intro_url,
         video_poster_url = excluded.video_poster_url`,
      [row.user_id, row.intent, url, posterUrl],
    );
    const [updated] = await sql<VideoProjectRow>(
      tx,
      `update video_intros set status = 'completed', progress = 100, video_key = ?, poster_key = ?,
         source_key = null, completions = completions + 1, updated_at = now()
       where id = ? returning *`,
      [result.videoKey, result.posterKey, projectId],
    );
    await stagePushes(tx, [row.user_id], (userId) => ({ kind: 'videos', userId, intent: row.intent }));
    const replacedKeys = [previous?.video_intro_url, previous?.video_poster_url]
      .map((u) => (u ? media.keyOf(u) : null))
      .filter((k): k is string => k !== null && k !== result.videoKey && k !== result.posterKey);
    return { applied: true, row: updated as VideoProjectRow, replacedKeys };
  });
}

/** The owner's current video per intent and the newest project of each (GET .../video-intros). */
export async function videoIntrosOf(
  em: EntityManager,
  media: MediaStore,
  userId: number,
): Promise<VideoIntrosResponse> {
  const profiles = await sql<{ intent: Intent; video_intro_url: string | null; video_poster_url: string | null }>(
    em,
    'select intent, video_intro_url, video_poster_url from user_profiles where user_id = ?',
    [userId],
  );
  const latest = await sql<VideoProjectRow>(
    em,
    `select distinct on (intent) * from video_intros where user_id = ? order by intent, created_at desc`,
    [userId],
  );
  return Object.fromEntries(
    INTENTS.map((intent) => {
      const profile = profiles.find((p) => p.intent === intent);
      const project = latest.find((p) => p.intent === intent);
      return [
        intent,
        {
          url: profile?.video_intro_url ?? null,
          posterUrl: profile?.video_poster_url ?? null,
          latest: project ? toVideoProject(project, media) : null,
        },
      ];
    }),
  ) as VideoIntrosResponse;
}
