import { BlockSchema } from './block.entity';
import { BlueskyOauthStateSchema } from './bluesky-oauth-state.entity';
import { EmailCodeSchema } from './email-code.entity';
import { FeedCandidateRunSchema, FeedCandidateSchema } from './feed-candidate.entity';
import { JobOutboxSchema } from './job-outbox.entity';
import { MatchSchema } from './match.entity';
import { MatchingModelSchema, TasteNeighbourSchema } from './matching.entity';
import { MessageSchema } from './message.entity';
import {
  AppealSchema,
  ModerationClaimSchema,
  ModerationEventSchema,
  ModerationNoticeSchema,
} from './moderation.entity';
import { PodcastSchema } from './podcast.entity';
import { PodcastEpisodeSchema } from './podcast-episode.entity';
import { NotificationPreferenceSchema, PushDeviceSchema } from './push-device.entity';
import { ReportMessageSchema, ReportSchema } from './report.entity';
import { SessionSchema } from './session.entity';
import { UserSchema } from './user.entity';
import { UserIdentitySchema } from './user-identity.entity';
import { UserPodcastSchema } from './user-podcast.entity';
import { UserProfileSchema } from './user-profile.entity';
import { VideoIntroSchema } from './video-intro.entity';

export * from './block.entity';
export * from './bluesky-oauth-state.entity';
export * from './email-code.entity';
export * from './feed-candidate.entity';
export * from './job-outbox.entity';
export * from './match.entity';
export * from './matching.entity';
export * from './message.entity';
export * from './moderation.entity';
export * from './podcast.entity';
export * from './podcast-episode.entity';
export * from './push-device.entity';
export * from './report.entity';
export * from './session.entity';
export * from './user.entity';
export * from './user-identity.entity';
export * from './user-podcast.entity';
export * from './user-profile.entity';
export * from './video-intro.entity';

export const entities = [
  UserSchema,
  UserIdentitySchema,
  UserProfileSchema,
  PodcastSchema,
  PodcastEpisodeSchema,
  UserPodcastSchema,
  MatchSchema,
  MessageSchema,
  SessionSchema,
  BlockSchema,
  FeedCandidateSchema,
  FeedCandidateRunSchema,
  ReportSchema,
  ReportMessageSchema,
  VideoIntroSchema,
  JobOutboxSchema,
  BlueskyOauthStateSchema,
  TasteNeighbourSchema,
  MatchingModelSchema,
  EmailCodeSchema,
  ModerationEventSchema,
  ModerationClaimSchema,
  AppealSchema,
  ModerationNoticeSchema,
  PushDeviceSchema,
  NotificationPreferenceSchema,
];
