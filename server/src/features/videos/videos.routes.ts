import type { EntityManager } from '@mikro-orm/postgresql';
import { api, QUEUES, VIDEO_TEXTS, type VideoServiceStatus, WORKER_HEARTBEAT } from '@shared/index';
import { type Request, Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { stageJob } from '../../core/jobs/outbox';
import { newMediaBase } from '../../core/media';
import { hasVisiblePodcast } from '../../core/videos/intro-data';
import { createProject, toVideoProject, videoIntrosOf } from '../../core/videos/video-projects';
import { badRequest, conflict, HttpError, notFound } from '../../http/errors';
import { clientAddress } from '../../http/rate-limits';
import { mount } from '../../http/route';
import { checkUploadedVideo, videoFileUpload } from './video-upload';

const unavailable = (message: string) => new HttpError(503, 'video_service_unavailable', message);

/** Video intros (docs/videos.md): generate, upload, status; access rules in shared/src/api/videos.ts. */
export function videosRoutes(deps: AppDeps): Router {
  const router = Router();

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

  /**
   * A new project and its job commit together (the job outbox: a Redis failure after the commit
   * delays the job, never loses it), then the job is relayed to the queue once the request
   * succeeded. An unfinished project of this intent is answered instead, with no new job.
   */
  const startProject = async (
    req: Request,
    input: Parameters<typeof createProject>[1],
    stage: (tx: EntityManager, projectId: string) => Promise<string>,
  ) => {
    const made = await req.effects.transactional(req.em, async (tx) => {
      const project = await createProject(tx, input);
      if (project.created) await stage(tx, project.row.id);
      return project;
    });
    if (made.created) req.effects.relayOutbox();
    return made;
  };

  mount(router, api.generateVideo, async ({ params, body, req }) => {
    const userId = params.userId;
    if (!(await hasVisiblePodcast(req.em, userId))) {
      throw new HttpError(422, 'profile_not_ready', VIDEO_TEXTS.profileNotReady);
    }
    const status = await serviceStatus();
    if (!status.available) throw unavailable(status.message);
    await deps.limits.take('videoStarts', { user: userId, ip: clientAddress(req) });
    const { row, created } = await startProject(
      req,
      { userId, intent: body.intent, source: 'generated', matchPercentage: body.matchPercentage },
      (tx, projectId) => stageJob(tx, 'videoRender', { projectId, userId, intent: body.intent }, { jobId: projectId }),
    );
    // Asking again while it runs answers the same project (a second tab, a double click).
    if (!created && row.source !== 'generated') {
      throw conflict('Your uploaded video for this intent is still being processed.');
    }
    return { projectId: row.id };
  });

  mount(
    router,
    api.uploadVideo,
    async ({ params, query, req }) => {
      // The temporary file is deleted once the answer is sent, whatever it is (http/multipart.ts).
      const file = req.file?.path;
      if (!file) throw badRequest(VIDEO_TEXTS.missing);
      // Before ffprobe reads the file: refused uploads count too (probing costs CPU).
      await deps.limits.take('videoStarts', { user: params.userId, ip: clientAddress(req) });
      const { extension } = await checkUploadedVideo(file);
      const sourceKey = `${newMediaBase('incoming')}.${extension}`;
      await deps.media.putFile(sourceKey, file, 'application/octet-stream');
      const { row, created } = await startProject(
        req,
        { userId: params.userId, intent: query.intent, source: 'upload', matchPercentage: 0, sourceKey },
        (tx, projectId) =>
          stageJob(
            tx,
            'mediaTranscode',
            { projectId, userId: params.userId, intent: query.intent },
            { jobId: projectId },
          ),
      ).catch(async (error: unknown) => {
        await deps.media.delete(sourceKey);
        throw error;
      });
      if (!created) {
        await deps.media.delete(sourceKey);
        throw conflict('A video for this intent is still being made. Wait for it to finish, then upload again.');
      }
      return { projectId: row.id };
    },
    [videoFileUpload(deps.config.uploadTempDir)],
  );

  mount(router, api.videoIntros, async ({ params, req }) => videoIntrosOf(req.em, deps.media, params.userId));

  mount(router, api.videoStatus, async ({ project }) => {
    if (!project) throw notFound(VIDEO_TEXTS.notFound);
    return toVideoProject(project, deps.media);
  });

  return router;
}
