import fs from 'node:fs/promises';
import path from 'node:path';
import { probeVideo, transcodeToVertical, VideoProbeError } from '@server/core/media/ffmpeg';
import { JobError, LIMITS, VIDEO_PROGRESS } from '@shared/index';
import type { JobHandler } from './handler';
import { runVideoProject } from './video-project';

/** Seconds of grace over the 30 s limit: containers round durations (the server checks the same). */
const DURATION_GRACE_SECONDS = 0.5;

/**
 * Transcodes an uploaded video (docs/videos.md) to a web-optimised vertical H.264 MP4 with its
 * audio, plus a poster, keeping none of its metadata (a phone records where it was filmed); checks it
 * again (the file comes from a person, whatever the server saw).
 */
export const mediaTranscode: JobHandler<'mediaTranscode'> = async ({ projectId, userId }, ctx) =>
  runVideoProject(projectId, userId, ctx, async (row, workDir, stages) => {
    await stages.stage('preparing', VIDEO_PROGRESS.preparing);
    if (!row.source_key) throw new JobError('unreadable', 'The uploaded file is missing.', { final: true });
    const original = path.join(workDir, `original${path.extname(row.source_key)}`);
    await ctx.media.getFile(row.source_key, original);
    let duration: number;
    try {
      duration = (await probeVideo(original)).durationSeconds;
    } catch (error) {
      if (error instanceof VideoProbeError) throw new JobError('unreadable', error.message, { final: true });
      throw error;
    }
    if (duration > LIMITS.videoMaxSeconds + DURATION_GRACE_SECONDS) {
      throw new JobError('too_long', `The video lasts ${duration.toFixed(1)} s.`, { final: true });
    }
    await stages.stage('submitting', VIDEO_PROGRESS.submitting);
    const out = path.join(workDir, 'out');
    await fs.mkdir(out);
    const result = await transcodeToVertical(original, out, {
      signal: ctx.signal,
      maxSeconds: LIMITS.videoMaxSeconds,
      // Progress is best effort: a failed status write must not fail the transcode.
      onProgress: (fraction) => void stages.processing(fraction).catch(() => undefined),
    });
    return result;
  });
