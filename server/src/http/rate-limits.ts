// Rate limits per person and per client address, counted in Redis so every server instance shares
// the counts (docs/security.md). The per-address allowance is much larger than the per-person one:
// many people share an address (an office, a mobile carrier's NAT), but a bot farm signing up
// accounts to get fresh per-person allowances still runs into it.
//
// Most endpoints take their limit in rateLimitRoutes, mounted ahead of the feature routes after
// authentication: before validation, access rules and upload parsing, so a flood costs one Redis
// call per request. Chat sends and video starts take theirs inside the shared code paths (REST and
// socket; video after its checks).
import { api, type Endpoint } from '@shared/api';
import { CHAT_TEXTS, IMAGE_PROXY_PATH, RATE_LIMIT_TEXTS, VIDEO_TEXTS } from '@shared/index';
import { type Request, Router } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { CALLBACK_PATH } from '../features/spotify/spotify.service';
import { tooManyRequests } from './errors';

interface Allowance {
  points: number;
  seconds: number;
}

interface Policy {
  /** Per signed-in person (or, for sign-in, per account name tried). */
  perUser?: Allowance;
  /** Per client address, as TRUST_PROXY resolves it (never a client-chosen header). */
  perIp: Allowance;
  message: string;
}

const minutes = (n: number) => n * 60;

export const RATE_LIMIT_POLICIES = {
  signIn: {
    perUser: { points: 20, seconds: minutes(10) },
    perIp: { points: 1000, seconds: minutes(10) },
    message: RATE_LIMIT_TEXTS.signIn,
  },
  codeExchange: { perIp: { points: 300, seconds: minutes(10) }, message: RATE_LIMIT_TEXTS.signIn },
  swipes: {
    perUser: { points: 120, seconds: 60 },
    perIp: { points: 2400, seconds: 60 },
    message: RATE_LIMIT_TEXTS.swipes,
  },
  reports: {
    perUser: { points: 10, seconds: minutes(60) },
    perIp: { points: 100, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.reports,
  },
  /** The per-person part comes from CHAT_SEND_LIMIT / CHAT_SEND_WINDOW_SECONDS (docs/chat.md). */
  messages: {
    perUser: { points: 30, seconds: 10 },
    perIp: { points: 6000, seconds: 60 },
    message: CHAT_TEXTS.rateLimited,
  },
  opmlImports: {
    perUser: { points: 10, seconds: minutes(60) },
    perIp: { points: 300, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.opmlImports,
  },
  libraryAdds: {
    perUser: { points: 120, seconds: minutes(60) },
    perIp: { points: 2400, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.libraryAdds,
  },
  search: {
    perUser: { points: 60, seconds: 60 },
    perIp: { points: 1200, seconds: 60 },
    message: RATE_LIMIT_TEXTS.search,
  },
  uploads: {
    perUser: { points: 30, seconds: minutes(60) },
    perIp: { points: 600, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.uploads,
  },
  /** Generations and video uploads: each costs seconds of ffmpeg on a worker (docs/video.md). */
  videoStarts: {
    perUser: { points: 20, seconds: minutes(60) },
    perIp: { points: 500, seconds: minutes(60) },
    message: VIDEO_TEXTS.rateLimited,
  },
  /** Each Bluesky link start resolves a handle and calls the person's server (docs/bluesky.md). */
  blueskyLinks: {
    perUser: { points: 20, seconds: minutes(10) },
    perIp: { points: 300, seconds: minutes(10) },
    message: RATE_LIMIT_TEXTS.blueskyLinks,
  },
  /** The public image proxy (docs/image-proxy.md): a feed screen shows dozens of pictures. */
  artwork: { perIp: { points: 6000, seconds: 60 }, message: RATE_LIMIT_TEXTS.artwork },
} satisfies Record<string, Policy>;

export type LimitName = keyof typeof RATE_LIMIT_POLICIES;

export interface RateLimitSettings {
  /** Multiplies every allowance (RATE_LIMIT_SCALE): 1 in production; the test suites raise it. */
  scale: number;
  /** The per-person chat allowance (CHAT_SEND_LIMIT per CHAT_SEND_WINDOW_SECONDS). */
  chatSendLimit: { limit: number; windowSeconds: number };
}

/** Who a request counts against: the person (or account name) and the client address. */
export interface Caller {
  user?: number | string;
  ip?: string;
}

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterRedis>();
  private readonly policies: Record<LimitName, Policy>;

  constructor(
    private readonly redis: Redis,
    private readonly settings: RateLimitSettings,
  ) {
    const chat = settings.chatSendLimit;
    this.policies = {
      ...RATE_LIMIT_POLICIES,
      messages: { ...RATE_LIMIT_POLICIES.messages, perUser: { points: chat.limit, seconds: chat.windowSeconds } },
    };
  }

  /**
   * Takes one point from the caller's allowances for `name` (person and address); over either, a
   * 429 with the policy's message and Retry-After in seconds.
   */
  async take(name: LimitName, caller: Caller): Promise<void> {
    const policy = this.policies[name];
    const checks: Promise<unknown>[] = [];
    if (policy.perUser && caller.user !== undefined) {
      // Chat keeps its own scale-free setting (CHAT_SEND_LIMIT is already configurable).
      const scaled = name !== 'messages';
      checks.push(this.limiter(name, 'user', policy.perUser, scaled).consume(String(caller.user)));
    }
    if (caller.ip) checks.push(this.limiter(name, 'ip', policy.perIp, true).consume(caller.ip));
    const results = await Promise.allSettled(checks);
    let waitMs = 0;
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      if (!(result.reason instanceof RateLimiterRes)) throw result.reason;
      waitMs = Math.max(waitMs, result.reason.msBeforeNext);
    }
    if (waitMs > 0) throw tooManyRequests(policy.message, Math.ceil(waitMs / 1000));
  }

  private limiter(name: LimitName, scope: 'user' | 'ip', allowance: Allowance, scaled: boolean): RateLimiterRedis {
    const key = `${name}:${scope}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      const options = {
        keyPrefix: `podmatch:limit:${key}`,
        points: scaled ? Math.max(1, Math.round(allowance.points * this.settings.scale)) : allowance.points,
        duration: allowance.seconds,
      };
      limiter = new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        // Redis down: count in this process (a per-instance limit) rather than refuse or allow everything.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(options),
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

interface LimitedEndpoint {
  /** A shared endpoint definition, or a route mounted by hand (the image proxy, OAuth redirects). */
  endpoint: Pick<Endpoint, 'method' | 'path'>;
  limit: LimitName;
  /** Whom the per-person allowance belongs to; the signed-in person unless said otherwise. */
  subject?: (req: Request) => string | undefined;
}

/** Sign-in is limited per account name tried, so one account cannot be hammered from many addresses. */
const accountNameTried = (req: Request): string | undefined => {
  const name = (req.body as { username?: unknown } | undefined)?.username;
  return typeof name === 'string' ? `name:${name.trim().toLowerCase().slice(0, 100)}` : undefined;
};

export const LIMITED_ENDPOINTS: LimitedEndpoint[] = [
  { endpoint: api.devLogin, limit: 'signIn', subject: accountNameTried },
  { endpoint: api.spotifyExchange, limit: 'codeExchange' },
  { endpoint: api.createMatch, limit: 'swipes' },
  { endpoint: api.undoPass, limit: 'swipes' },
  { endpoint: api.reportUser, limit: 'reports' },
  { endpoint: api.importOpml, limit: 'opmlImports' },
  { endpoint: api.addUserPodcast, limit: 'libraryAdds' },
  { endpoint: api.searchPodcasts, limit: 'search' },
  { endpoint: api.uploadProfilePicture, limit: 'uploads' },
  { endpoint: api.uploadVideo, limit: 'uploads' },
  { endpoint: api.generateAvatar, limit: 'uploads' },
  { endpoint: { method: 'GET', path: IMAGE_PROXY_PATH }, limit: 'artwork' },
  // The Spotify redirects (docs/spotify.md): starting a sign-in or connect, and Spotify's callback.
  { endpoint: { method: 'GET', path: '/api/auth/spotify' }, limit: 'signIn' },
  { endpoint: { method: 'GET', path: '/api/spotify/login' }, limit: 'signIn' },
  { endpoint: { method: 'GET', path: CALLBACK_PATH }, limit: 'codeExchange' },
];

/** The client address as TRUST_PROXY resolves it (express's req.ip), never a raw header. */
export const clientAddress = (req: Request): string | undefined => req.ip ?? req.socket.remoteAddress;

export function rateLimitRoutes(limits: RateLimits): Router {
  const router = Router();
  for (const { endpoint, limit, subject } of LIMITED_ENDPOINTS) {
    const method = endpoint.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](endpoint.path, async (req, _res, next) => {
      await limits.take(limit, { user: subject ? subject(req) : req.auth?.userId, ip: clientAddress(req) });
      next();
    });
  }
  return router;
}
