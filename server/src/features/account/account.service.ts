// The person's own data (docs/privacy.md): "Download my data" and "Delete account".
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountExport, Intent } from '@shared/index';
import type { AppDeps } from '../../app-deps';
import { identityOf, type UserProfileSchema, UserSchema } from '../../core/db/entities';
import { blockedEitherWay, lockPairsOf, type RowOf, sql } from '../../core/db/sql';
import type { MediaStore } from '../../core/media';
import { mediaUrlsOf } from '../../core/media/owned-media';
import { deletePicture } from '../../core/media/pictures';
import { preferencesOf } from '../../core/notifications/preferences';
import { toSelfUser } from '../../core/presenters/user.presenter';
import type { Effects } from '../../core/realtime/effects';
import { notFound } from '../../http/errors';
import { revokeBluesky } from '../bluesky/bluesky.service';
import { pushDevices } from '../notifications/notifications.service';

const iso = (value: Date | string | null) => (value == null ? null : new Date(value).toISOString());
const isoOf = (value: Date | string) => new Date(value).toISOString();

/**
 * Everything stored about `userId`, without secrets and without who reported them, as they may see it
 * now: a person who blocked them (or whom they blocked) appears by id only.
 */
export async function exportAccount(
  em: EntityManager,
  userId: number,
  media: Pick<MediaStore, 'url'>,
): Promise<AccountExport> {
  const user = await em.findOne(UserSchema, userId);
  if (!user) throw notFound('User not found.');
  const profiles = await sql<RowOf<typeof UserProfileSchema>>(
    em,
    'select * from user_profiles where user_id = ? order by intent',
    [userId],
  );
  const podcasts = await sql<{
    name: string;
    creator: string | null;
    feed_url: string | null;
    source: string;
    hidden: boolean;
    times_listened: number;
    episode_count: number | null;
    last_listened: Date | null;
    last_episode: string | null;
    created_at: Date;
  }>(
    em,
    `select p.name, p.creator, p.feed_url, up.source, up.hidden, up.times_listened, up.episode_count,
            up.last_listened, up.last_episode, up.created_at
       from user_podcasts up join podcasts p on p.id = up.podcast_id where up.user_id = ? order by p.name, p.id`,
    [userId],
  );
  const side = (column: string) => `case when m.user1_id = ? then m.user1_${column} else m.user2_${column} end`;
  const decisions = await sql<{
    other_id: number;
    other_name: string | null;
    intent: Intent;
    liked: boolean;
    acted: boolean;
    favorite: boolean;
    match_percentage: number;
    mutual_at: Date | null;
    unmatched_at: Date | null;
    created_at: Date;
  }>(
    em,
    `select u.id as other_id,
            case when ${blockedEitherWay('m.user1_id', 'm.user2_id')} then null else u.display_name end as other_name,
            m.intent, ${side('liked')} as liked,
            ${side('acted')} as acted, ${side('favorite')} as favorite, m.match_percentage,
            m.mutual_at, m.unmatched_at, m.created_at
       from matches m join users u on u.id = case when m.user1_id = ? then m.user2_id else m.user1_id end
      where (m.user1_id = ? or m.user2_id = ?) and ${side('acted')}
      order by m.created_at, m.id`,
    [userId, userId, userId, userId, userId, userId, userId],
  );
  const messages = await sql<{ to_id: number; intent: Intent; content: string; created_at: Date }>(
    em,
    `select case when m.user1_id = ? then m.user2_id else m.user1_id end as to_id, m.intent, msg.content, msg.created_at
       from messages msg join matches m on m.id = msg.match_id
      where msg.sender_id = ? order by msg.created_at, msg.id`,
    [userId, userId],
  );
  // Only current conversations: a match since ended or blocked is not the other person's to hand out.
  const received = await sql<{
    from_id: number;
    from_name: string;
    intent: Intent;
    content: string;
    created_at: Date;
  }>(
    em,
    `select msg.sender_id as from_id, u.display_name as from_name, m.intent, msg.content, msg.created_at
       from matches m
       join messages msg on msg.match_id = m.id and msg.sender_id <> ?
       join users u on u.id = msg.sender_id
      where (m.user1_id = ? or m.user2_id = ?) and m.mutual_at is not null and m.unmatched_at is null
        and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}
      order by msg.created_at, msg.id`,
    [userId, userId, userId],
  );
  const videos = await sql<{
    intent: Intent;
    source: string;
    status: string;
    video_key: string | null;
    poster_key: string | null;
    error_code: string | null;
    created_at: Date;
    updated_at: Date;
  }>(
    em,
    `select intent, source, status, video_key, poster_key, error_code, created_at, updated_at
       from video_intros where user_id = ? order by created_at`,
    [userId],
  );
  const blocks = await sql<{ blocked_id: number; created_at: Date }>(
    em,
    'select blocked_id, created_at from blocks where blocker_id = ? order by created_at',
    [userId],
  );
  const reports = await sql<{ reported_id: number; reason: string; details: string | null; created_at: Date }>(
    em,
    'select reported_id, reason, details, created_at from reports where reporter_id = ? order by created_at',
    [userId],
  );
  const sessions = await sql<{
    created_at: Date;
    expires_at: Date;
    revoked_at: Date | null;
    user_agent: string | null;
  }>(em, 'select created_at, expires_at, revoked_at, user_agent from sessions where user_id = ? order by created_at', [
    userId,
  ]);
  const bluesky = identityOf(user, 'bluesky');
  return {
    exportedAt: new Date().toISOString(),
    // The linked Spotify account is in here (spotifyId, spotifyConnected, lastSpotifySync).
    account: { ...toSelfUser(user), signUpMethod: user.signUpMethod },
    bluesky: bluesky ? { did: bluesky.subject, handle: bluesky.handle ?? null } : null,
    email: identityOf(user, 'email')?.subject ?? null,
    profiles: profiles.map((p) => ({
      intent: p.intent,
      displayName: p.display_name,
      tagline: p.tagline,
      profilePicture: p.profile_picture,
      videoIntroUrl: p.video_intro_url,
      active: p.active,
    })),
    podcasts: podcasts.map((p) => ({
      name: p.name,
      creator: p.creator,
      feedUrl: p.feed_url,
      source: p.source,
      hidden: p.hidden,
      timesListened: p.times_listened,
      episodeCount: p.episode_count,
      lastListened: iso(p.last_listened),
      lastEpisode: p.last_episode,
      addedAt: isoOf(p.created_at),
    })),
    decisions: decisions.map((d) => ({
      otherUserId: d.other_id,
      otherDisplayName: d.other_name,
      intent: d.intent,
      liked: d.liked,
      acted: d.acted,
      favorite: d.favorite,
      matchPercentage: d.match_percentage,
      mutualAt: iso(d.mutual_at),
      unmatchedAt: iso(d.unmatched_at),
      createdAt: isoOf(d.created_at),
    })),
    messagesSent: messages.map((m) => ({
      toUserId: m.to_id,
      intent: m.intent,
      content: m.content,
      sentAt: isoOf(m.created_at),
    })),
    messagesReceived: received.map((m) => ({
      fromUserId: m.from_id,
      fromDisplayName: m.from_name,
      intent: m.intent,
      content: m.content,
      sentAt: isoOf(m.created_at),
    })),
    videoProjects: videos.map((v) => ({
      intent: v.intent,
      source: v.source,
      status: v.status,
      videoUrl: v.video_key ? media.url(v.video_key) : null,
      posterUrl: v.poster_key ? media.url(v.poster_key) : null,
      errorCode: v.error_code,
      createdAt: isoOf(v.created_at),
      updatedAt: isoOf(v.updated_at),
    })),
    blocks: blocks.map((b) => ({ blockedUserId: b.blocked_id, createdAt: isoOf(b.created_at) })),
    reportsMade: reports.map((r) => ({
      reportedUserId: r.reported_id,
      reason: r.reason,
      details: r.details,
      createdAt: isoOf(r.created_at),
    })),
    sessions: sessions.map((s) => ({
      createdAt: isoOf(s.created_at),
      expiresAt: isoOf(s.expires_at),
      revokedAt: iso(s.revoked_at),
      userAgent: s.user_agent,
    })),
    pushDevices: await pushDevices(em, userId),
    notificationPreferences: await preferencesOf(em, userId),
  };
}

/**
 * Deletes the account (deleteAccountRows) and then what lives outside the database: a linked
 * Bluesky session is revoked at the person's server first (read from their identity), the other
 * people's matches disappear live after the commit, then this person's tabs end, and their files
 * go last.
 */
export async function deleteAccount(
  deps: Pick<AppDeps, 'bluesky' | 'logger' | 'media'> & { effects: Effects },
  em: EntityManager,
  userId: number,
): Promise<void> {
  await revokeBluesky(deps, em, userId);
  const deleted = await deleteAccountRows(em, userId);
  for (const match of deleted.matches) {
    deps.effects.emit(
      'match:removed',
      { matchId: match.id, intent: match.intent, reason: 'accountDeleted' },
      { userIds: [userId, match.otherId] },
    );
  }
  deps.effects.pushBadges([...new Set(deleted.matches.map((m) => m.otherId))]);
  deps.effects.endSessions(deleted.sessionIds, 'logout');
  // Files last: a failure leaves an unreachable file (unguessable name), never a half-deleted person.
  for (const url of deleted.mediaUrls) {
    await deletePicture(deps.media, url).catch((error: unknown) =>
      deps.logger.warn(`media of deleted account ${userId} not removed: ${(error as Error).message}`),
    );
  }
  deps.logger.info(`account ${userId} deleted`);
}

export interface DeletedAccount {
  /** The live mutual matches that ended, for the 'match:removed' events. */
  matches: { id: number; intent: Intent; otherId: number }[];
  sessionIds: number[];
  /** Stored picture and video URLs of the person, for removal from media storage. */
  mediaUrls: string[];
}

/**
 * Deletes the person and everything of theirs: library, profiles, linked identities, sessions, likes
 * and matches (both sides: the row is the pair's) with their messages, blocks, and their scores.
 * Reports stay for their
 * retention period (docs/privacy.md, "Reports"): about them with the name and messages kept at the
 * time, by them without their id. It takes
 * the pair lock with everyone they have a match or block with first (as likes and blocks do, so
 * neither waits on the other's locks in the opposite order), then the user row: a like, message or
 * block racing this one either commits first (and is deleted with the rest) or finds nobody (404).
 */
export async function deleteAccountRows(em: EntityManager, userId: number): Promise<DeletedAccount> {
  return em.transactional(async (tx) => {
    const others = await sql<{ id: number }>(
      tx,
      `select case when user1_id = ? then user2_id else user1_id end as id from matches where user1_id = ? or user2_id = ?
       union select case when blocker_id = ? then blocked_id else blocker_id end from blocks where blocker_id = ? or blocked_id = ?`,
      [userId, userId, userId, userId, userId, userId],
    );
    await lockPairsOf(
      tx,
      userId,
      others.map((row) => row.id),
    );
    const [user] = await sql<{ id: number }>(tx, 'select id from users where id = ? for update', [userId]);
    if (!user) throw notFound('User not found.');
    const matches = await sql<{ id: number; intent: Intent; other_id: number }>(
      tx,
      `select m.id, m.intent, case when m.user1_id = ? then m.user2_id else m.user1_id end as other_id
         from matches m
        where (m.user1_id = ? or m.user2_id = ?) and m.mutual_at is not null and m.unmatched_at is null
          and not ${blockedEitherWay('m.user1_id', 'm.user2_id')}`,
      [userId, userId, userId],
    );
    const sessions = await sql<{ id: number }>(tx, 'select id from sessions where user_id = ?', [userId]);
    const mediaUrls = await mediaUrlsOf(tx, userId);
    // Scores have no foreign keys (full recompute swaps the table); the rest cascades from users.
    await sql(tx, 'delete from feed_candidates where user_id = ? or candidate_id = ?', [userId, userId]);
    await sql(tx, 'delete from taste_neighbours where user_id = ?', [userId]);
    await sql(tx, 'delete from users where id = ?', [userId]);

    return {
      matches: matches.map((m) => ({ id: m.id, intent: m.intent, otherId: m.other_id })),
      sessionIds: sessions.map((s) => s.id),
      mediaUrls,
    };
  });
}
