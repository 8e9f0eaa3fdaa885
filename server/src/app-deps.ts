import type { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { AppConfig } from './config';
import type { ArtworkUrls } from './core/artwork/artwork-urls';
import type { BlueskyClient } from './core/bluesky/bluesky-client';
import type { DatabaseOutageWatch } from './core/db/outage';
import type { JobQueue } from './core/jobs/job-queue';
import type { OutboxRelay } from './core/jobs/outbox';
import type { Logger } from './core/logger';
import type { Mailer } from './core/mail/mailer';
import type { MediaStore } from './core/media';
import type { ServerMetrics } from './core/metrics/metrics';
import type { RealtimeEmitter } from './core/realtime/emitter';
import type { Publisher } from './core/realtime/publisher';
import type { Reauthentication } from './features/auth/reauth';
import type { SessionService } from './features/auth/session.service';
import type { ChatService } from './features/chat/chat.service';
import type { BadgePusher } from './features/matches/badges.service';
import type { RateLimits } from './http/rate-limits';

/** Everything the HTTP app needs, built once in main.ts (or a test) and passed in. */
export interface AppDeps {
  config: AppConfig;
  orm: MikroORM;
  redis: Redis;
  jobs: JobQueue;
  /** Relays jobs staged in a transaction (core/jobs/outbox.ts); `relay()` after such a commit. */
  outbox: OutboxRelay;
  sessions: SessionService;
  /** Outgoing email: SMTP, or the development mailbox (core/mail); null when email is off. */
  mail: Mailer | null;
  /** Recent proofs of ownership that adding or removing a way in needs (features/auth/reauth.ts). */
  reauth: Reauthentication;
  emitter: RealtimeEmitter;
  /** Sends socket events (validated, to the recipients of RECIPIENTS); requests use req.effects. */
  publisher: Publisher;
  badges: BadgePusher;
  /** Sends and read receipts, shared by REST and socket (rate limit, store, announce). */
  chat: ChatService;
  /** Pictures and avatars (docs/media.md); the local directory driver unless MEDIA_DRIVER says otherwise. */
  media: MediaStore;
  /** Signs the image proxy URLs of remote artwork in API answers (docs/image-proxy.md). */
  artwork: ArtworkUrls;
  /** Per-person and per-address allowances, shared through Redis (docs/security.md). */
  limits: RateLimits;
  /** The AT Protocol OAuth client of the Bluesky link (docs/bluesky.md); null where it cannot work. */
  bluesky: BlueskyClient | null;
  /** Told of every 503 for a database outage; tells the sockets to catch up once it is over. */
  databaseOutage: DatabaseOutageWatch;
  /** Set once a shutdown began: readiness answers 503 from then on (features/health). */
  lifecycle: { draining: boolean };
  /** This instance's Prometheus metrics (core/metrics); served on METRICS_PORT when set. */
  metrics: ServerMetrics;
  logger: Logger;
}
