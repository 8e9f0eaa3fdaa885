import fs from 'node:fs/promises';
import path from 'node:path';
import { loadIntroData } from '@server/core/videos/intro-data';
import { introTagline, JobError, VIDEO_PROGRESS } from '@shared/index';
import { composeNarration } from '../videos/narration';
import type { IntroInput } from '../videos/video-provider';
import type { JobContext, JobHandler } from './handler';
import { runVideoProject } from './video-project';

/**
 * Renders a generated intro (docs/videos.md): loads the profile for the intent (picture, name,
 * tagline, top 5 visible podcasts with artwork through the image proxy's cache), composes the
 * narration, and lets the video provider render it. Progress: 10 preparing, 25 submitted, 50..90
 * rendering, 100 done (SPEC section 9).
 */
export const videoRender: JobHandler<'videoRender'> = async ({ projectId, userId, intent }, ctx) =>
  runVideoProject(projectId, userId, ctx, async (row, workDir, stages) => {
    await stages.stage('preparing', VIDEO_PROGRESS.preparing);
    const data = await loadIntroData(ctx.em, userId, intent);
    if (!data) throw new JobError('unknown', 'This person no longer exists.', { final: true });
    if (data.podcasts.length === 0) {
      throw new JobError('profile_not_ready', 'No visible podcast to show.', { final: true });
    }
    const [picture, ...artwork] = await Promise.all([
      loadImage(ctx, data.picture, workDir),
      ...data.podcasts.map((p) => loadImage(ctx, p.imageUrl, workDir)),
    ]);
    const tagline = introTagline({
      intentTagline: data.intentTagline,
      genericTagline: data.genericTagline,
      podcastNames: data.podcasts.map((p) => p.name),
    });
    const input: Omit<IntroInput, 'narration'> = {
      intent,
      displayName: data.displayName,
      tagline: tagline.text,
      taglineKind: tagline.kind,
      matchPercentage: row.match_percentage,
      picture: picture ?? null,
      podcasts: data.podcasts.map((p, i) => ({ name: p.name, creator: p.creator, artwork: artwork[i] ?? null })),
    };
    const rendered = await ctx.videoProvider.render(
      { ...input, narration: composeNarration(input) },
      {
        workDir,
        signal: ctx.signal,
        onSubmitted: () => stages.stage('submitting', VIDEO_PROGRESS.submitting),
        onProgress: (fraction) => stages.processing(fraction),
      },
    );
    return rendered;
  });

/** A stored picture from the media store, a remote one through the image proxy; null if none or unusable. */
async function loadImage(ctx: JobContext, url: string | null, workDir: string): Promise<Buffer | null> {
  if (!url) return null;
  const key = ctx.media.keyOf(url);
  if (key) {
    const file = path.join(workDir, `picture-${path.basename(key)}`);
    try {
      await ctx.media.getFile(key, file);
      return await fs.readFile(file);
    } catch {
      return null;
    }
  }
  if (!/^https?:\/\//i.test(url)) return null;
  const result = await ctx.imageProxy.get(url);
  return result.ok ? result.body : null;
}
