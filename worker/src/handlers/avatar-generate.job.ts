import { createAvatar } from '@dicebear/core';
import * as notionists from '@dicebear/notionists';
import { UserSchema } from '@server/core/db/entities';
import { encodePicture, isGeneratedAvatar, storePicture, swapPicture } from '@server/core/media/pictures';
import { queueDemoIntros } from '@server/core/videos/demo-intros';
import type { JobHandler } from './handler';

/** Soft backgrounds behind the portraits; DiceBear picks one from the seed. */
const BACKGROUNDS = ['b6e3f4', 'c0aede', 'd1d4f9', 'ffd5dc', 'ffdfbf', 'c7f0d8', 'fde7a9'];

/**
 * A person's illustrated portrait as SVG: DiceBear's "Notionists" style (design by Zoish, CC0 1.0;
 * docs/media.md), seeded by the user id alone, so the same person always gets the same face and
 * a rename does not change it. Never served as SVG: see renderPortrait.
 */
export function renderPortraitSvg(userId: number): string {
  return createAvatar(notionists, {
    seed: `podmatch-user-${userId}`,
    size: 512,
    backgroundColor: BACKGROUNDS,
    backgroundType: ['solid'],
  }).toString();
}

/** The portrait rasterised (WebP, in the picture sizes), like an uploaded picture. */
export function renderPortrait(userId: number) {
  return encodePicture(Buffer.from(renderPortraitSvg(userId)));
}

/**
 * Gives a person a generated portrait unless they uploaded a picture: an uploaded (or any
 * non-generated) picture is never replaced, even by a job that raced the upload (the swap checks
 * under the row lock). A previous generated avatar (including the old letter SVGs) is replaced and
 * its files deleted.
 */
export const avatarGenerate: JobHandler<'avatarGenerate'> = async ({ userId }, ctx) => {
  const user = await ctx.em.findOne(UserSchema, userId);
  if (!user) throw new Error(`User ${userId} no longer exists`);
  // Someone with an uploaded (or remote) picture keeps it: nothing to render.
  if (user.profilePicture && !isGeneratedAvatar(ctx.media, user.profilePicture)) {
    return { profilePicture: user.profilePicture };
  }
  await ctx.progress(10);
  const url = await storePicture(ctx.media, 'avatars', await renderPortrait(userId));
  await ctx.progress(80);
  const changed = await swapPicture(ctx.em, ctx.media, userId, url, { onlyOverGenerated: true });
  const current = await ctx.em.findOne(UserSchema, userId, { refresh: true });
  if (!current) throw new Error(`User ${userId} no longer exists`);
  if (changed) ctx.effects.userUpdated(current);
  // A demo person's intro shows their portrait: it is queued once the portrait exists.
  if (current.isDemo && ctx.demoVideos) await queueDemoIntros(ctx.em, ctx.enqueue, [userId]);
  return { profilePicture: current.profilePicture ?? url };
};
