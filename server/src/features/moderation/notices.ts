// What a person is told about moderation (docs/moderation.md, "Statements of reasons"): each action
// against them and each appeal outcome is a notice they see in the app, and a suspended person
// whose sign-in is refused gets the statement with a short-lived token to appeal without a session.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { COMMUNITY_RULES, type CommunityRule, MODERATION_TEXTS, type Notice, type SuspendedError } from '@shared/index';
import { sql } from '../../core/db/sql';
import { STRIKE_KINDS_SQL } from '../../core/moderation/standing';
import { HttpError } from '../../http/errors';
import { iso } from './queue.service';

interface NoticeRow {
  id: number;
  kind: Notice['kind'];
  created_at: string;
  event_id: number;
  event_kind: Notice['action']['kind'];
  reason: Notice['action']['reason'];
  rule: CommunityRule | null;
  explanation: string;
  ends_at: string | null;
  event_created_at: string;
  appeal_state: 'open' | 'upheld' | 'reversed' | null;
  decision_explanation: string | null;
  appealable: boolean;
}

/** A notice with its action, whether that action can still be appealed, and its appeal. */
const NOTICE_SELECT = `
  select n.id, n.kind, n.created_at, e.id as event_id, e.kind as event_kind, e.reason, e.rule, e.explanation,
         e.ends_at, e.created_at as event_created_at, a.state as appeal_state, a.decision_explanation,
         (n.kind = 'action' and e.kind in (${STRIKE_KINDS_SQL})
           and not exists (select 1 from appeals mine where mine.event_id = e.id)
           and not exists (select 1 from moderation_events r where r.reverses_id = e.id)) as appealable
    from moderation_notices n
    join moderation_events e on e.id = n.event_id
    left join appeals a on a.id = n.appeal_id or (n.appeal_id is null and a.event_id = e.id)`;

export function toNotice(row: NoticeRow): Notice {
  return {
    id: row.id,
    kind: row.kind,
    action: {
      id: row.event_id,
      kind: row.event_kind,
      reason: row.reason,
      rule: row.rule,
      ruleText: row.rule ? COMMUNITY_RULES[row.rule] : null,
      explanation: row.explanation,
      endsAt: iso(row.ends_at),
      createdAt: iso(row.event_created_at) as string,
    },
    appeal:
      row.kind === 'appealOutcome' && row.appeal_state
        ? { state: row.appeal_state, explanation: row.decision_explanation }
        : null,
    canAppeal: row.appealable,
    createdAt: iso(row.created_at) as string,
  };
}

/** The person's notices they have not marked seen, oldest first. */
export async function unseenNotices(em: EntityManager, userId: number): Promise<Notice[]> {
  const rows = await sql<NoticeRow>(em, `${NOTICE_SELECT} where n.user_id = ? and n.seen_at is null order by n.id`, [
    userId,
  ]);
  return rows.map(toNotice);
}

export async function noticeById(em: EntityManager, noticeId: number): Promise<Notice | null> {
  const [row] = await sql<NoticeRow>(em, `${NOTICE_SELECT} where n.id = ?`, [noticeId]);
  return row ? toNotice(row) : null;
}

export async function markSeen(em: EntityManager, userId: number, noticeId: number): Promise<boolean> {
  const rows = await sql(
    em,
    'update moderation_notices set seen_at = coalesce(seen_at, now()) where id = ? and user_id = ? returning id',
    [noticeId, userId],
  );
  return rows.length > 0;
}

/** Stores a notice for the person; answers its id. */
export async function addNotice(
  tx: EntityManager,
  userId: number,
  eventId: number,
  kind: Notice['kind'],
  appealId: number | null = null,
): Promise<number> {
  const [row] = await sql<{ id: number }>(
    tx,
    `insert into moderation_notices (user_id, event_id, kind, appeal_id, created_at) values (?, ?, ?, ?, now())
     returning id`,
    [userId, eventId, kind, appealId],
  );
  return (row as { id: number }).id;
}

// --- appeal tokens: `userId.eventId.expiry.signature`, signed with the server's key ---

const APPEAL_TOKEN_TTL_SECONDS = 60 * 60;
const sign = (key: Buffer, payload: string) =>
  createHmac('sha256', key).update(`appeal:${payload}`).digest('base64url');

export function appealToken(key: Buffer, userId: number, eventId: number, now = Date.now()): string {
  const payload = `${userId}.${eventId}.${Math.floor(now / 1000) + APPEAL_TOKEN_TTL_SECONDS}`;
  return `${payload}.${sign(key, payload)}`;
}

/** The person and action a token was issued for; 400 when it is forged or expired. */
export function readAppealToken(key: Buffer, token: string, now = Date.now()): { userId: number; eventId: number } {
  const parts = token.split('.');
  const [user, event, expiry, signature] = parts;
  const expected = parts.length === 4 ? sign(key, `${user}.${event}.${expiry}`) : '';
  const valid =
    signature !== undefined &&
    signature.length === expected.length &&
    timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
  if (!valid || Number(expiry) * 1000 < now) {
    throw new HttpError(400, 'bad_request', MODERATION_TEXTS.appealExpired);
  }
  return { userId: Number(user), eventId: Number(event) };
}

// --- the sign-in guard ---

const dateOf = (value: Date) =>
  value.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** A suspended or banned person's refused sign-in: 403 `suspended` with the statement (SuspendedErrorSchema). */
export class SuspendedSignIn extends HttpError {
  constructor(
    override readonly details: Omit<SuspendedError, 'error' | 'message'>,
    message: string,
  ) {
    super(403, 'suspended', message);
  }
}

/**
 * Refuses to open a session for a suspended or banned account (SessionService calls it inside the
 * transaction that stores the new session). The row is locked for share: a suspension committing
 * at the same moment waits for this sign-in and then ends its session, or this sign-in waits and
 * is refused.
 */
export function refuseSuspended(key: Buffer) {
  return async (tx: EntityManager, userId: number): Promise<void> => {
    const [user] = await sql<{ suspended_until: string | null; banned_at: string | null; now: string }>(
      tx,
      'select suspended_until, banned_at, now() as now from users where id = ? for share',
      [userId],
    );
    if (!user) return;
    const until = user.suspended_until ? new Date(user.suspended_until) : null;
    const suspended = until !== null && until > new Date(user.now);
    if (!user.banned_at && !suspended) return;
    const [latest] = await sql<NoticeRow>(
      tx,
      `${NOTICE_SELECT} where n.user_id = ? and n.kind = 'action' and e.kind in ('suspend', 'ban')
        order by n.id desc limit 1`,
      [userId],
    );
    const notice = latest ? toNotice(latest) : null;
    const message = user.banned_at
      ? 'This account has been banned. You cannot sign in.'
      : `This account is suspended until ${dateOf(until as Date)}. You can sign in again after that.`;
    if (!notice) throw new HttpError(403, 'suspended', message);
    throw new SuspendedSignIn(
      {
        until: user.banned_at ? null : iso(until),
        notice,
        appealToken: notice.canAppeal ? appealToken(key, userId, notice.action.id) : null,
      },
      message,
    );
  };
}
