import type { EntityManager } from '@mikro-orm/postgresql';
import { AI_VIDEO_PODCASTS, displayName, type Intent } from '@shared/index';
import { sql } from '../db/sql';

/** What a generated intro shows of a person for one intent (docs/videos.md), read in two queries. */
export interface IntroData {
  displayName: string;
  /** The intent profile's tagline, else the user's tagline for that intent. */
  intentTagline: string | null;
  genericTagline: string | null;
  /** The user's picture, else the intent profile's (SPEC section 5 order), as stored (URL). */
  picture: string | null;
  /** Top visible podcasts by times listened (SPEC section 9: at most 5). */
  podcasts: { name: string; creator: string | null; imageUrl: string | null }[];
}

const TAGLINE_COLUMN: Record<Intent, string> = {
  romantic: 'romantic_tagline',
  platonic: 'platonic_tagline',
  professional: 'professional_tagline',
};

export async function loadIntroData(em: EntityManager, userId: number, intent: Intent): Promise<IntroData | null> {
  const taglineColumn = TAGLINE_COLUMN[intent];
  const [person] = await sql<{
    display_name: string;
    pr_display_name: string | null;
    intent_tagline: string | null;
    tagline: string | null;
    picture: string | null;
  }>(
    em,
    `select u.display_name, pr.display_name as pr_display_name,
       coalesce(pr.tagline, u.${taglineColumn}) as intent_tagline, u.tagline,
       coalesce(nullif(u.profile_picture, ''), nullif(pr.profile_picture, '')) as picture
     from users u left join user_profiles pr on pr.user_id = u.id and pr.intent = ?
     where u.id = ?`,
    [intent, userId],
  );
  if (!person) return null;
  const podcasts = await sql<{ name: string; creator: string | null; image_url: string | null }>(
    em,
    `select p.name, p.creator, p.image_url from user_podcasts up join podcasts p on p.id = up.podcast_id
     where up.user_id = ? and not up.hidden and p.verified_at is not null
     order by up.times_listened desc, up.episode_count desc nulls last, p.name, p.id limit ?`,
    [userId, AI_VIDEO_PODCASTS],
  );
  return {
    displayName: displayName(person.pr_display_name, person.display_name),
    intentTagline: person.intent_tagline,
    genericTagline: person.tagline,
    picture: person.picture,
    podcasts: podcasts.map((p) => ({ name: p.name, creator: p.creator, imageUrl: p.image_url })),
  };
}

/** SPEC section 5: a generated intro needs at least one visible podcast. */
export async function hasVisiblePodcast(em: EntityManager, userId: number): Promise<boolean> {
  // A show others may see (its feed was read, or it came from a trusted source): the video is public.
  const rows = await sql(
    em,
    `select 1 from user_podcasts up join podcasts p on p.id = up.podcast_id
      where up.user_id = ? and not up.hidden and p.verified_at is not null limit 1`,
    [userId],
  );
  return rows.length > 0;
}
