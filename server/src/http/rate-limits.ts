// Rate limits per person and per client address, counted in Redis so every server instance shares
// the counts (docs/security.md). The per-address allowance is much larger than the per-person one:
// many people share an address (an office, a mobile carrier's NAT), but a bot farm signing up
// accounts to get fresh per-person allowances still runs into it.
//
// Endpoints name their limit in their shared definition (`rateLimit`), taken by mount() first,
// before authentication, validation, access rules and upload parsing, so a flood costs one Redis
// call per request. Chat sends and video starts take theirs inside the shared code paths (REST and
// socket; video after its checks). Every socket event counts against `socketEvents`
// (realtime/socket-limits.ts).
//
// An address counts by `addressKey`: IPv4 itself, IPv6 by its /64 (one subscriber's allocation).
import net from 'node:net';
import { CHAT_TEXTS, RATE_LIMIT_TEXTS, type RateLimitName, VIDEO_TEXTS } from '@shared/index';
import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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
  /** Generations and video uploads: each costs seconds of ffmpeg on a worker (docs/videos.md). */
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
  /** Hiding, showing and removing library entries: each queues a recompute (coalesced per person). */
  libraryEdits: {
    perUser: { points: 120, seconds: minutes(10) },
    perIp: { points: 2400, seconds: minutes(10) },
    message: RATE_LIMIT_TEXTS.libraryEdits,
  },
  /** A Spotify refresh is a full sync of the person's saved shows (many calls to Spotify). */
  spotifySyncs: {
    perUser: { points: 10, seconds: minutes(60) },
    perIp: { points: 300, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.spotifySyncs,
  },
  /**
   * Every event a person's sockets send (all tabs, every instance): sends, read receipts, typing,
   * presence questions, pings (docs/chat.md). Sends also count against `messages`.
   */
  socketEvents: {
    perUser: { points: 200, seconds: 10 },
    perIp: { points: 20_000, seconds: 60 },
    message: RATE_LIMIT_TEXTS.socketEvents,
  },
  /**
   * Asking for an emailed code (docs/auth.md): per address the code goes to (a sign-in, `per:
   * 'accountName'`) or per person (a link), and per client address. Each sends a mail.
   */
  emailCodes: {
    perUser: { points: 5, seconds: minutes(15) },
    perIp: { points: 30, seconds: minutes(15) },
    message: RATE_LIMIT_TEXTS.emailCodes,
  },
  /**
   * The same per day, per address a code goes to (whoever asks) and per client address: five tries
   * a code, so at most 100 guesses of a million a day at one address (features/email-auth).
   */
  emailCodesDaily: {
    perUser: { points: 20, seconds: minutes(24 * 60) },
    perIp: { points: 300, seconds: minutes(24 * 60) },
    message: RATE_LIMIT_TEXTS.emailCodesDaily,
  },
  /** Passkey ceremonies (options and verifications), per person where known and per address. */
  passkeys: {
    perUser: { points: 30, seconds: minutes(10) },
    perIp: { points: 300, seconds: minutes(10) },
    message: RATE_LIMIT_TEXTS.passkeys,
  },
  /** A moderator working a busy queue reads and acts a few times a minute; a script would not stop there. */
  moderation: {
    perUser: { points: 300, seconds: minutes(5) },
    perIp: { points: 3000, seconds: minutes(5) },
    message: RATE_LIMIT_TEXTS.moderation,
  },
  appeals: {
    perUser: { points: 5, seconds: minutes(60) },
    perIp: { points: 50, seconds: minutes(60) },
    message: RATE_LIMIT_TEXTS.appeals,
  },
  /** Registering devices and saving notification preferences: a few taps at a time, never hundreds. */
  pushSettings: {
    perUser: { points: 60, seconds: minutes(10) },
    perIp: { points: 600, seconds: minutes(10) },
    message: RATE_LIMIT_TEXTS.pushSettings,
  },
} satisfies Record<RateLimitName, Policy>;

export type LimitName = RateLimitName;

/**
 * The per-person key of an email address (sign-in codes and their checks are counted per address
 * tried, `per: 'accountName'`; a link's codes count against the address they go to as well).
 */
export const emailAllowanceKey = (email: string) => `email:${email.trim().toLowerCase().slice(0, 320)}`;

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
   * Takes one point from the caller's allowances for `name` (person, then address); over either, a
   * 429 with the policy's message and Retry-After in seconds. The person's comes first: one over
   * theirs (refused from memory, see `limiter`) costs no Redis call and does not spend the
   * allowance of everyone else at their address.
   */
  async take(name: LimitName, caller: Caller): Promise<void> {
    const policy = this.policies[name];
    try {
      if (policy.perUser && caller.user !== undefined) {
        // Chat keeps its own scale-free setting (CHAT_SEND_LIMIT is already configurable).
        const scaled = name !== 'messages';
        await this.limiter(name, 'user', policy.perUser, scaled).consume(String(caller.user));
      }
      if (caller.ip) await this.limiter(name, 'ip', policy.perIp, true).consume(addressKey(caller.ip));
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      throw tooManyRequests(policy.message, Math.ceil(error.msBeforeNext / 1000));
    }
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
        // Once a key is over its allowance, this instance refuses it from memory until the window
        // ends: a flood past the limit costs no Redis call per request (the answer is the same).
        inMemoryBlockOnConsumed: options.points + 1,
        // Redis down: count in this process (a per-instance limit) rather than refuse or allow everything.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(options),
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }
}

/** The client address as TRUST_PROXY resolves it (express's req.ip), never a raw header. */
export const clientAddress = (req: Request): string | undefined => req.ip ?? req.socket.remoteAddress;

/**
 * What a client address counts under. IPv6: its /64, since one subscriber (a home, a phone, a
 * server) usually gets a whole /64 and can pick any of its 2^64 addresses; an IPv4 address as
 * itself, also when written IPv4-mapped (::ffff:1.2.3.4, as a dual-stack listener reports IPv4
 * clients). Anything else (no address a proxy would write) counts as written.
 */
export function addressKey(address: string): string {
  if (net.isIPv4(address)) return address;
  // A zone (fe80::1%eth0) names the interface, not the client.
  const bare = address.split('%')[0] ?? '';
  if (!net.isIPv6(bare)) return address;
  // The WHATWG URL parser writes IPv6 canonically (lowercase, zeros compressed, an embedded IPv4
  // part in hex), which leaves only the one '::' to expand.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(zeros).fill('0'), ...right].map((g) => Number.parseInt(g, 16));
  const [, , , , , mapped, high = 0, low = 0] = groups;
  if (groups.slice(0, 5).every((g) => g === 0) && mapped === 0xffff) {
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
