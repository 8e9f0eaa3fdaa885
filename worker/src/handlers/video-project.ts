// What both video jobs share (docs/videos.md): stage updates written to the project row and pushed
// to the owner's sockets, a private work directory deleted whatever happens, storing the result
// and applying it to the profile exactly once.
import fs from 'node:fs/promises';
import { newMediaBase } from '@server/core/media';
import {
  completeProject,
  failProject,
  findProject,
  setStage,
  type VideoProjectRow,
} from '@server/core/videos/video-projects';
import { JobError, type JobErrorCode, VIDEO_PROGRESS } from '@shared/index';
import { createWorkDir, removeWorkDir } from '../videos/work-dir';
import type { JobContext } from './handler';

type Stage = 'preparing' | 'submitting' | 'processing';

export interface ProjectStages {
  /** Moves the project to a stage at a progress (never backwards); pushes it to the owner. */
  stage(status: Stage, progress: number): Promise<void>;
  /** Processing progress as a fraction 0..1, mapped to 50..90 and sent at most every 2 points. */
  processing(fraction: number): Promise<void>;
}

/**
 * Runs one attempt of a video job for `projectId`: `work` renders or transcodes into the work dir
 * and answers the two files; they are stored and applied to the profile. A finished project is
 * answered as it is (a retried or duplicated job does nothing twice). A failure on the last attempt,
 * or one retrying cannot fix, marks the project failed with its code before the job fails.
 */
export async function runVideoProject(
  projectId: string,
  userId: number,
  ctx: JobContext,
  work: (
    row: VideoProjectRow,
    workDir: string,
    stages: ProjectStages,
  ) => Promise<{ videoPath: string; posterPath: string }>,
): Promise<{ url: string; posterUrl: string }> {
  const row = await findProject(ctx.em, projectId);
  if (!row || row.user_id !== userId)
    throw new JobError('unknown', 'This video project no longer exists.', { final: true });
  if (row.status === 'completed' && row.video_key && row.poster_key) {
    return { url: ctx.media.url(row.video_key), posterUrl: ctx.media.url(row.poster_key) };
  }
  if (row.status === 'failed') throw new JobError('unknown', 'This video project already failed.', { final: true });

  let last = row.progress;
  const stages: ProjectStages = {
    async stage(status, progress) {
      await setStage(ctx.em, projectId, status, progress);
      last = Math.max(last, progress);
      await ctx.progress(Math.round(last));
    },
    async processing(fraction) {
      const span = VIDEO_PROGRESS.processingMax - VIDEO_PROGRESS.processing;
      const progress = Math.round(VIDEO_PROGRESS.processing + Math.min(1, Math.max(0, fraction)) * span);
      if (progress < last + 2 && progress < VIDEO_PROGRESS.processingMax) return;
      await stages.stage('processing', progress);
    },
  };

  const workDir = await createWorkDir(ctx.videoWorkDir, projectId);
  const stored: string[] = [];
  try {
    const result = await work(row, workDir, stages);
    const base = newMediaBase('videos');
    const videoKey = `${base}.mp4`;
    const posterKey = `${base}-poster.jpg`;
    await ctx.media.putFile(videoKey, result.videoPath, 'video/mp4');
    stored.push(videoKey);
    await ctx.media.putFile(posterKey, result.posterPath, 'image/jpeg');
    stored.push(posterKey);
    const done = await completeProject(ctx.em, ctx.media, projectId, { videoKey, posterKey });
    if (!done.applied) {
      // Another run finished first: ours is a duplicate.
      await Promise.all(stored.map((key) => ctx.media.delete(key)));
      if (done.row.status !== 'completed' || !done.row.video_key || !done.row.poster_key) {
        throw new JobError('unknown', 'This video project already failed.', { final: true });
      }
      return { url: ctx.media.url(done.row.video_key), posterUrl: ctx.media.url(done.row.poster_key) };
    }
    // The profile's previous video is no longer shown anywhere.
    await Promise.all(done.replacedKeys.map((key) => ctx.media.delete(key).catch(() => undefined)));
    if (row.source_key) await ctx.media.delete(row.source_key).catch(() => undefined);
    return { url: ctx.media.url(videoKey), posterUrl: ctx.media.url(posterKey) };
  } catch (error) {
    await Promise.all(stored.map((key) => ctx.media.delete(key).catch(() => undefined)));
    const final = (error instanceof JobError && error.final) || ctx.finalAttempt;
    if (final) {
      const code = error instanceof JobError ? error.code : 'unknown';
      await failProject(ctx.em, projectId, code as JobErrorCode<'video.render'>);
      if (row.source_key) await ctx.media.delete(row.source_key).catch(() => undefined);
    }
    throw error;
  } finally {
    await removeWorkDir(workDir);
  }
}

/** Reads a local file's first bytes (type sniffing). */
export async function readHead(file: string, bytes = 4096): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
