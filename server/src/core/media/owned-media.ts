// Every stored picture and video of one person (their profile, each intent's profile, their video
// intros' files): what account deletion removes and what a ban withholds (docs/moderation.md).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../db/sql';
import { MEDIA_URL_PREFIX } from './media-store';

export async function mediaUrlsOf(tx: EntityManager, userId: number): Promise<string[]> {
  const rows = await sql<{ url: string | null }>(
    tx,
    `select unnest(array[profile_picture, video_intro_url]) as url from users where id = ?
     union select unnest(array[profile_picture, video_intro_url, video_poster_url]) from user_profiles where user_id = ?
     union select ? || unnest(array[video_key, poster_key, source_key]) from video_intros where user_id = ?`,
    [userId, userId, MEDIA_URL_PREFIX, userId],
  );
  return [...new Set(rows.map((row) => row.url).filter((url): url is string => Boolean(url)))];
}
