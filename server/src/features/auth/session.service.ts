import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Session, SessionSchema } from '../../core/db/entities';

export interface SessionSettings {
  tokenTtlMs: number;
  tokenRotateAfterMs: number;
  tokenRotationGraceMs: number;
  /** However often a login's token is rotated, it ends this long after the login. */
  tokenMaxLifetimeMs: number;
}

/** Milliseconds since the epoch; tests pass a clock they move by hand instead of sleeping. */
export type Clock = () => number;

/**
 * Runs `fn` once `ms` have passed on the same clock; answers a canceller. Real timers by default; a
 * test's clock runs them when it is moved past their time (server/src/test/harness.ts TestClock).
 */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export const realTimer: SetTimer = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/** Throws to refuse a new session for this person (a suspended account: features/moderation/notices.ts). */
export type SignInGuard = (tx: EntityManager, userId: number) => Promise<void>;

/** Opaque bearer tokens, stored hashed, with expiry, silent rotation and family-wide revocation. */
export class SessionService {
  constructor(
    private readonly settings: SessionSettings,
    private readonly now: Clock = Date.now,
    private readonly guard: SignInGuard = async () => {},
  ) {}

  async create(
    em: EntityManager,
    userId: number,
    userAgent?: string,
    family: string = randomUUID(),
    loginAt: Date = new Date(this.now()),
  ): Promise<{ token: string; session: Session }> {
    const token = newToken();
    // The guard's check and the new row commit together (the guard locks the person's row).
    const session = await em.transactional(async (tx) => {
      await this.guard(tx, userId);
      return tx.create(SessionSchema, {
        userId,
        tokenHash: hashToken(token),
        family,
        createdAt: new Date(this.now()),
        loginAt,
        expiresAt: new Date(
          Math.min(this.now() + this.settings.tokenTtlMs, loginAt.getTime() + this.settings.tokenMaxLifetimeMs),
        ),
        userAgent: userAgent?.slice(0, 255) ?? null,
      });
    });
    return { token, session };
  }

  /** The live session for a token, or null when unknown, expired or revoked. */
  async resolve(em: EntityManager, token: string): Promise<Session | null> {
    if (!token || token.length > 200) return null;
    const session = await em.findOne(SessionSchema, { tokenHash: hashToken(token) });
    if (!session || session.revokedAt || session.expiresAt.getTime() <= this.now()) return null;
    return session;
  }

  /** How long this token has before it expires, on this service's clock. */
  msUntilExpiry(session: Session): number {
    return session.expiresAt.getTime() - this.now();
  }

  /**
   * Whether a socket authenticated with this session may still act: its login goes on. A socket
   * keeps the session it connected with, and rotation hands the login on to a successor token.
   */
  async isLive(em: EntityManager, sessionId: number): Promise<boolean> {
    return (await this.msLeftInLogin(em, sessionId)) > 0;
  }

  /**
   * How long the login this session belongs to goes on: until the latest expiry among its
   * unrevoked tokens (a rotated token's successor carries it on; the maximum lifetime caps it).
   * Zero or less when it has ended or was revoked (logout revokes the whole family).
   */
  async msLeftInLogin(em: EntityManager, sessionId: number): Promise<number> {
    const session = await em.findOne(
      SessionSchema,
      { id: sessionId },
      { fields: ['family', 'revokedAt'], disableIdentityMap: true },
    );
    if (!session || session.revokedAt) return 0;
    const latest = await em.findOne(
      SessionSchema,
      { family: session.family, revokedAt: null },
      { fields: ['expiresAt'], orderBy: { expiresAt: 'desc' }, disableIdentityMap: true },
    );
    return latest ? latest.expiresAt.getTime() - this.now() : 0;
  }

  /**
   * Issues a fresh token when this one is old enough. The old token keeps working for a short
   * grace period so requests already in flight do not fail. Only one concurrent caller wins.
   */
  async rotateIfDue(em: EntityManager, session: Session, userAgent?: string): Promise<string | null> {
    if (session.rotatedAt || this.now() - session.createdAt.getTime() < this.settings.tokenRotateAfterMs) return null;
    const now = new Date(this.now());
    const graceEnd = new Date(
      Math.min(session.expiresAt.getTime(), now.getTime() + this.settings.tokenRotationGraceMs),
    );
    const claimed = await em.nativeUpdate(
      SessionSchema,
      { id: session.id, rotatedAt: null },
      { rotatedAt: now, expiresAt: graceEnd },
    );
    if (claimed !== 1) return null;
    const { token } = await this.create(em, session.userId, userAgent, session.family, session.loginAt);
    return token;
  }

  /** Revokes every token of every login of this user (all devices); returns their ids. */
  async revokeAllOf(em: EntityManager, userId: number): Promise<number[]> {
    const members = await em.find(SessionSchema, { userId, revokedAt: null }, { fields: ['id'] });
    await em.nativeUpdate(SessionSchema, { userId, revokedAt: null }, { revokedAt: new Date(this.now()) });
    return members.map((m) => m.id);
  }

  /** Revokes every token of the login this session belongs to; returns their ids. */
  async revokeFamily(em: EntityManager, session: Session): Promise<number[]> {
    const members = await em.find(SessionSchema, { family: session.family, revokedAt: null }, { fields: ['id'] });
    await em.nativeUpdate(
      SessionSchema,
      { family: session.family, revokedAt: null },
      { revokedAt: new Date(this.now()) },
    );
    return members.map((m) => m.id);
  }
}
