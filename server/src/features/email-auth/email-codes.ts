// Emailed one-time codes (docs/auth.md, "Email codes"): six digits, stored only as a salted hash,
// valid EMAIL_CODE_TTL_MINUTES, used once, dead after EMAIL_CODE_MAX_ATTEMPTS wrong tries. The
// row is the single source of truth for every server instance.
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  EMAIL_AUTH_TEXTS,
  EMAIL_CODE_ERRORS,
  EMAIL_CODE_LENGTH,
  EMAIL_CODE_MAX_ATTEMPTS,
  EMAIL_CODE_TTL_MINUTES,
} from '@shared/index';
import { sql } from '../../core/db/sql';
import { HttpError } from '../../http/errors';

/**
 * Whom a code is for. A sign-in code belongs to its address (anyone may ask for one); a link or
 * re-authentication code to the account that asked, so nobody else can spend it.
 */
export type CodeTarget =
  | { purpose: 'signIn'; email: string }
  | { purpose: 'link'; email: string; userId: number }
  | { purpose: 'reauth'; email: string; userId: number };

/** Advisory-lock key space of code issuing (the second key is a hash of the target). */
const ISSUE_LOCK_SPACE = 7_300_002;
/** Spent and expired codes stay this long (for a support question), then the next issue sweeps them. */
const KEEP_DEAD_CODES_MS = 24 * 3600_000;

/**
 * The codes a target's new code replaces, and the one its check reads: a sign-in's per address; a
 * link's per account (one pending change of address at a time: a code for another address ends
 * the previous one); a re-authentication's per account.
 */
function scope(target: CodeTarget): { where: string; params: unknown[]; lockKey: string } {
  return target.purpose === 'signIn'
    ? { where: `purpose = 'signIn' and email = ?`, params: [target.email], lockKey: `signIn:${target.email}` }
    : {
        where: 'purpose = ? and user_id = ?',
        params: [target.purpose, target.userId],
        lockKey: `${target.purpose}:${target.userId}`,
      };
}

const hashCode = (salt: string, code: string) => createHash('sha256').update(`${salt}:${code}`).digest('hex');

function codeMatches(stored: string, code: string): boolean {
  const [salt = '', hash = ''] = stored.split(':');
  const offered = Buffer.from(hashCode(salt, code));
  const expected = Buffer.from(hash);
  return offered.length === expected.length && timingSafeEqual(offered, expected);
}

/**
 * Makes a new code for the target and ends its older ones; answers the code (to be mailed, never
 * stored or logged). Issues for one target take turns (an advisory lock), so exactly one code is
 * alive for it afterwards. The same statements run for every address, known or not.
 */
export async function issueCode(em: EntityManager, target: CodeTarget, now = new Date()): Promise<string> {
  const code = String(randomInt(0, 10 ** EMAIL_CODE_LENGTH)).padStart(EMAIL_CODE_LENGTH, '0');
  const salt = randomBytes(16).toString('hex');
  const { where, params, lockKey } = scope(target);
  await em.fork().transactional(async (tx) => {
    await sql(tx, 'select pg_advisory_xact_lock(?::int, hashtext(?))', [ISSUE_LOCK_SPACE, lockKey]);
    await sql(tx, `delete from email_codes where ${where}`, params);
    await sql(
      tx,
      'delete from email_codes where id in (select id from email_codes where expires_at < ? order by expires_at limit 100)',
      [new Date(now.getTime() - KEEP_DEAD_CODES_MS)],
    );
    await sql(
      tx,
      `insert into email_codes (email, purpose, user_id, code_hash, attempts, expires_at, created_at)
       values (?, ?, ?, ?, 0, ?, ?)`,
      [
        target.email,
        target.purpose,
        target.purpose === 'signIn' ? null : target.userId,
        `${salt}:${hashCode(salt, code)}`,
        new Date(now.getTime() + EMAIL_CODE_TTL_MINUTES * 60_000),
        now,
      ],
    );
  });
  return code;
}

type Refusal = { refused: 'noCode' | 'used' | 'locked' | 'expired' } | { refused: 'wrong'; triesLeft: number };

function refusal(outcome: Refusal): HttpError {
  switch (outcome.refused) {
    case 'wrong':
      return new HttpError(400, EMAIL_CODE_ERRORS.wrong, EMAIL_AUTH_TEXTS.wrong(outcome.triesLeft));
    case 'noCode':
      return new HttpError(400, EMAIL_CODE_ERRORS.noCode, EMAIL_AUTH_TEXTS.noCode);
    case 'used':
      return new HttpError(400, EMAIL_CODE_ERRORS.used, EMAIL_AUTH_TEXTS.used);
    case 'locked':
      return new HttpError(400, EMAIL_CODE_ERRORS.locked, EMAIL_AUTH_TEXTS.locked);
    case 'expired':
      return new HttpError(400, EMAIL_CODE_ERRORS.expired, EMAIL_AUTH_TEXTS.expired);
  }
}

/**
 * Checks `code` against the target's live code; when right, spends it and runs `onRight` in the
 * same transaction, so a code is spent exactly when what it was for commits (a 409 from `onRight`
 * leaves it unspent). The code's row is locked for the check: concurrent tries, on any instance,
 * take turns, so every wrong one counts and a right one wins once. A refusal is a 400 whose
 * message says what to do (EMAIL_AUTH_TEXTS); a wrong try is counted even so.
 */
export async function spendCode<T>(
  em: EntityManager,
  target: CodeTarget,
  code: string,
  onRight: (tx: EntityManager) => Promise<T>,
  now = new Date(),
): Promise<T> {
  const { where, params } = scope(target);
  const outcome = await em.fork().transactional(async (tx): Promise<Refusal | { value: T }> => {
    const [row] = await sql<{
      id: number;
      email: string;
      code_hash: string;
      attempts: number;
      used: boolean;
      expired: boolean;
    }>(
      tx,
      `select id, email, code_hash, attempts, used_at is not null as used, expires_at <= ? as expired
       from email_codes where ${where} order by id desc limit 1 for update`,
      [now, ...params],
    );
    // A link code is for the address it was sent to, not another one typed on the way back.
    if (!row || row.email !== target.email) return { refused: 'noCode' };
    if (row.used) return { refused: 'used' };
    if (row.attempts >= EMAIL_CODE_MAX_ATTEMPTS) return { refused: 'locked' };
    if (row.expired) return { refused: 'expired' };
    if (!codeMatches(row.code_hash, code)) {
      const [counted] = await sql<{ attempts: number }>(
        tx,
        'update email_codes set attempts = attempts + 1 where id = ? returning attempts',
        [row.id],
      );
      const attempts = counted?.attempts ?? EMAIL_CODE_MAX_ATTEMPTS;
      return attempts >= EMAIL_CODE_MAX_ATTEMPTS
        ? { refused: 'locked' }
        : { refused: 'wrong', triesLeft: EMAIL_CODE_MAX_ATTEMPTS - attempts };
    }
    await sql(tx, 'update email_codes set used_at = ? where id = ?', [now, row.id]);
    return { value: await onRight(tx) };
  });
  if ('refused' in outcome) throw refusal(outcome);
  return outcome.value;
}
