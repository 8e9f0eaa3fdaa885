import type { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { SessionSchema } from '../../core/db/entities';
import { HttpError } from '../../http/errors';
import type { AuthContext } from '../../http/request-context';
import type { Clock } from './session.service';

/**
 * How long a proof of being the account's owner counts for changing its ways in (docs/auth.md,
 * "Re-authentication"): a sign-in, or a fresh passkey or emailed code given on the profile.
 */
export const REAUTH_WINDOW_MS = 10 * 60_000;

export const REAUTH_REQUIRED_CODE = 'reauth_required';

/**
 * Recent proofs of ownership, per login (a session family, so a token rotation keeps it), kept in
 * Redis so every server instance sees them; a login that began within the window counts as fresh.
 */
export class Reauthentication {
  constructor(
    private readonly redis: Redis,
    private readonly now: Clock = Date.now,
  ) {}

  private key = (family: string) => `podmatch:reauth:${family}`;

  /** Records a fresh proof for the caller's login (a passkey or a code just verified). */
  async mark(em: EntityManager, auth: AuthContext): Promise<void> {
    const session = await em.findOneOrFail(SessionSchema, auth.sessionId, { fields: ['family'] });
    await this.redis.set(this.key(session.family), String(this.now()), 'PX', REAUTH_WINDOW_MS);
  }

  /** Until when the caller's login may change its ways in without another proof, or null. */
  async freshUntil(em: EntityManager, auth: AuthContext): Promise<Date | null> {
    const session = await em.findOneOrFail(SessionSchema, auth.sessionId, { fields: ['family', 'loginAt'] });
    const marked = Number((await this.redis.get(this.key(session.family))) ?? 0);
    const until = Math.max(session.loginAt.getTime(), marked) + REAUTH_WINDOW_MS;
    return until > this.now() ? new Date(until) : null;
  }

  /** Refuses with 403 `reauth_required` unless the caller proved themselves within the window. */
  async require(em: EntityManager, auth: AuthContext): Promise<void> {
    if (await this.freshUntil(em, auth)) return;
    throw new HttpError(
      403,
      REAUTH_REQUIRED_CODE,
      'Please confirm it is you first: use a passkey or a code sent to your email.',
    );
  }
}
