import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { UserSchema } from '@server/core/db/entities';
import { toSelfUser } from '@server/core/presenters/user.presenter';
import { INTENT_INFO, type Intent, rooms } from '@shared/index';
import type { JobHandler } from './handler';

const GENERATED_PREFIX = '/media/avatars/';

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The first letter or digit of a name, so emoji and symbols do not become the avatar. */
export function avatarInitial(displayName: string): string {
  const match = displayName.normalize('NFKC').match(/[\p{L}\p{N}]/u);
  return (match?.[0] ?? '?').toLocaleUpperCase();
}

export function renderAvatarSvg(displayName: string, colors: readonly [string, string]): string {
  const initial = escapeXml(avatarInitial(displayName));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256" role="img" aria-label="${escapeXml(displayName)}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${colors[0]}"/><stop offset="1" stop-color="${colors[1]}"/></linearGradient></defs>
<rect width="256" height="256" fill="url(#g)"/>
<text x="128" y="128" dy=".35em" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" font-size="120" font-weight="700" fill="#fff">${initial}</text>
</svg>
`;
}

/**
 * Renders a letter avatar in the user's intent colours and makes it their picture unless they
 * uploaded one. Idempotent: the file name is a hash of what it shows.
 */
export const avatarGenerate: JobHandler<'avatarGenerate'> = async ({ userId }, ctx) => {
  const user = await ctx.em.findOne(UserSchema, userId);
  if (!user) throw new Error(`User ${userId} no longer exists`);
  await ctx.progress(10);
  const svg = renderAvatarSvg(user.displayName, INTENT_INFO[user.intent as Intent].videoColors);
  const name = `${userId}-${createHash('sha256').update(svg).digest('hex').slice(0, 12)}.svg`;
  const dir = path.join(ctx.mediaDir, 'avatars');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, name), svg);
  await ctx.progress(80);

  const url = `${GENERATED_PREFIX}${name}`;
  if (!user.profilePicture || user.profilePicture.startsWith(GENERATED_PREFIX)) {
    user.profilePicture = url;
    await ctx.em.flush();
    ctx.emitter.to(rooms.user(userId)).emit('user:updated', toSelfUser(user));
  }
  return { profilePicture: user.profilePicture ?? url };
};
