import fs from 'node:fs/promises';
import { api, QUEUES, VIDEO_TEXTS, type VideoServiceStatus, WORKER_HEARTBEAT } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { newMediaBase } from '../../core/media';
import { hasVisiblePodcast } from '../../core/videos/intro-data';
import { createProject, failProject, toVideoProject, videoIntrosOf } from '../../core/videos/video-projects';
import { badRequest, conflict, HttpError, notFound } from '../../http/errors';
import { clientAddress } from '../../http/rate-limits';
import { mount } from '../../http/route';
import { checkUploadedVideo, sweepStaleUploads, videoFileUpload } from './video-upload';

const unavailable = (message: string) => new HttpError(503, 'video_service_unavailable', message);

/** Video intros (docs/video.md): generate, upload, status; access rules in shared/src/api/videos.ts. */
export function videosRoutes(deps: AppDeps): Router {
  const router = Router();
  void sweepStaleUploads().catch(() => undefined);

  /** Redis answers and at least one live worker serves the video queue. */
  async function serviceStatus(): Promise<VideoServiceStatus> {
    try {
      const workers = await deps.redis.zcount(WORKER_HEARTBEAT.queueKey(QUEUES.video), Date.now(), '+inf');
      if (workers === 0) return { available: false, message: VIDEO_TEXTS.noWorker };
      return { available: true, message: VIDEO_TEXTS.serviceReady };
    } catch {
      return { available: false, message: VIDEO_TEXTS.redisDown };
    }
  }

  mount(router, api.videoServiceStatus, serviceStatus);

  mount(router, api.generateVideo, async ({ params, body, req }) => {
    const userId = params.userId;
    if (!(await hasVisiblePodcast(req.em, userId))) {
      throw new HttpError(422, 'profile_not_ready', VIDEO_TEXTS.profileNotReady);
    }
    const status = await serviceStatus();
    if (!status.available) throw unavailable(status.message);
    await deps.limits.take('videoStarts', { user: userId, ip: clientAddress(req) });
    const { row, created } = await createProject(req.em, {
      userId,
      intent: body.intent,
      source: 'generated',
      matchPercentage: body.matchPercentage,
    });
    // Asking again while it runs answers the same project (a second tab, a double click).
    if (!created) {
      if (row.source !== 'generated') throw conflict('Your uploaded video for this intent is still being processed.');
      return { projectId: row.id };
    }
    await enqueueOrFail(deps, row.id, () =>
      deps.jobs.enqueue('videoRender', { projectId: row.id, userId, intent: body.intent }, { jobId: row.id }),
    );
    return { projectId: row.id };
  });

  mount(
    router,
    api.uploadVideo,
    async ({ params, query, req }) => {
      const file = req.file?.path;
      if (!file) throw badRequest(VIDEO_TEXTS.missing);
      try {
        // Before ffprobe reads the file: refused uploads count too (probing costs CPU).
        await deps.limits.take('videoStarts', { user: params.userId, ip: clientAddress(req) });
        const { extension } = await checkUploadedVideo(file);
        const sourceKey = `${newMediaBase('incoming')}.${extension}`;
        await deps.media.putFile(sourceKey, file, 'application/octet-stream');
        const { row, created } = await createProject(req.em, {
          userId: params.userId,
          intent: query.intent,
          source: 'upload',
          matchPercentage: 0,
          sourceKey,
        }).catch(async (error: unknown) => {
          await deps.media.delete(sourceKey);
          throw error;
        });
        if (!created) {
          await deps.media.delete(sourceKey);
          throw conflict('A video for this intent is still being made. Wait for it to finish, then upload again.');
        }
        await enqueueOrFail(deps, row.id, () =>
          deps.jobs.enqueue(
            'mediaTranscode',
            { projectId: row.id, userId: params.userId, intent: query.intent },
            { jobId: row.id },
          ),
        );
        return { projectId: row.id };
      } finally {
        await fs.rm(file, { force: true });
      }
    },
    [videoFileUpload()],
  );

  mount(router, api.videoIntros, async ({ params, req }) => videoIntrosOf(req.em, deps.media, params.userId));

  mount(router, api.videoStatus, async ({ project }) => {
    if (!project) throw notFound(VIDEO_TEXTS.notFound);
    return toVideoProject(project, deps.media);
  });

  return router;
}

/** A project whose job cannot be queued (Redis down) is failed at once rather than left waiting. */
async function enqueueOrFail(deps: AppDeps, projectId: string, enqueue: () => Promise<string>): Promise<void> {
  try {
    await enqueue();
  } catch (error) {
    deps.logger.warn(`could not queue video project ${projectId}: ${(error as Error).message}`);
    await failProject(deps.orm.em.fork(), projectId, 'provider_unavailable');
    throw unavailable(VIDEO_TEXTS.redisDown);
  }
}
