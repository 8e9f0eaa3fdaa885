// What moderators do (docs/moderation.md, "Actions" and "Appeals"). Every action is an append-only
// event with who, when, why and the rule; the person gets a statement of reasons; what it changes
// (hidden from feeds, suspended, banned) lives on their users row, read by every feed and match
// list. One moderator at a time per person: acting holds the person's claim, so of two moderators
// acting at once one wins and the other is told.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  AUTO_HIDE_REPORTERS,
  type Intent,
  MODERATION_TEXTS,
  type ModerationActionBody,
  type ModerationEventKind,
  type QueueSubject,
  type ReportReason,
  type Role,
  STRIKE_ACTIONS,
} from '@shared/index';
import type { AppDeps } from '../../app-deps';
import { sql } from '../../core/db/sql';
import { mediaUrlsOf } from '../../core/media/owned-media';
import { STRIKE_KINDS_SQL } from '../../core/moderation/standing';
import { release as releaseMedia, withhold } from '../../core/moderation/withheld-media';
import type { Effects } from '../../core/realtime/effects';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../../http/errors';
import { addNotice, appealToken, noticeById, readAppealToken } from './notices';
import { EVENT_COLUMNS, type EventRow, subjectSummary, toEvent } from './queue.service';

export interface Moderator {
  userId: number;
  role: Role;
}

type Deps = Pick<AppDeps, 'config' | 'redis'> & { effects: Effects };

/** A claim left this long is anyone's to take (a moderator who walked away). */
const CLAIM_STALE_MINUTES = 30;

/** Claims the person for this moderator (or renews their claim); 409 when another moderator holds it. */
async function holdClaim(tx: EntityManager, moderatorId: number, subjectId: number): Promise<void> {
  const held = await sql(
    tx,
    `insert into moderation_claims (subject_id, moderator_id, claimed_at) values (?, ?, now())
     on conflict (subject_id) do update set moderator_id = excluded.moderator_id, claimed_at = now()
       where moderation_claims.moderator_id = excluded.moderator_id
          or moderation_claims.claimed_at < now() - make_interval(mins => ${CLAIM_STALE_MINUTES})
     returning subject_id`,
    [subjectId, moderatorId],
  );
  if (held.length === 0) throw conflict(MODERATION_TEXTS.claimedByOther);
}

export async function claim(em: EntityManager, moderator: Moderator, subjectId: number): Promise<QueueSubject> {
  if (!(await subjectSummary(em, subjectId))) throw notFound('Nobody with this id has been reported.');
  await em.transactional((tx) => holdClaim(tx, moderator.userId, subjectId));
  return (await subjectSummary(em, subjectId)) as QueueSubject;
}

export async function release(em: EntityManager, moderator: Moderator, subjectId: number): Promise<void> {
  await sql(em, 'delete from moderation_claims where subject_id = ? and moderator_id = ?', [
    subjectId,
    moderator.userId,
  ]);
}

async function usernameOf(tx: EntityManager, userId: number): Promise<string> {
  const [row] = await sql<{ username: string }>(tx, 'select username from users where id = ?', [userId]);
  return row?.username ?? 'moderator';
}

async function recordEvent(
  tx: EntityManager,
  event: {
    subjectId: number;
    moderatorId: number | null;
    kind: ModerationEventKind;
    reason: ReportReason;
    rule: string | null;
    explanation: string;
    endsAt?: Date | null;
    reversesId?: number | null;
  },
): Promise<EventRow> {
  const [row] = await sql<EventRow>(
    tx,
    `insert into moderation_events
       (subject_id, moderator_id, moderator_username, kind, reason, rule, explanation, ends_at, reverses_id, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, now()) returning *`,
    [
      event.subjectId,
      event.moderatorId,
      event.moderatorId === null ? null : await usernameOf(tx, event.moderatorId),
      event.kind,
      event.reason,
      event.rule,
      event.explanation,
      event.endsAt ?? null,
      event.reversesId ?? null,
    ],
  );
  return row as EventRow;
}

/** The latest warning, hide, suspension or ban of this person still in force (not undone or reversed). */
async function latestInForce(tx: EntityManager, subjectId: number): Promise<EventRow | null> {
  const [row] = await sql<EventRow>(
    tx,
    `select * from moderation_events e
      where e.subject_id = ? and e.kind in (${STRIKE_KINDS_SQL})
        and not exists (select 1 from moderation_events r where r.reverses_id = e.id)
      order by e.id desc limit 1`,
    [subjectId],
  );
  return row ?? null;
}

/**
 * Takes back what an action changed on the person's row (an undo, or a reversed appeal); answers the
 * media a reversed ban withheld, to serve again once this commits.
 */
async function reverseEffects(tx: EntityManager, action: EventRow): Promise<string[]> {
  if (action.kind === 'hide') {
    await sql(tx, `update users set feed_hidden = null where id = ? and feed_hidden = 'moderator'`, [
      action.subject_id,
    ]);
  } else if (action.kind === 'suspend') {
    await sql(tx, 'update users set suspended_until = null where id = ?', [action.subject_id]);
  } else if (action.kind === 'ban') {
    await sql(tx, 'update users set banned_at = null, suspended_until = null where id = ?', [action.subject_id]);
    return mediaUrlsOf(tx, action.subject_id);
  }
  return [];
}

/**
 * Ends the person's every login and tells them why first, and takes their live matches away from
 * the other people (a suspension or a ban).
 */
async function removeFromApp(deps: Deps, tx: EntityManager, subjectId: number, noticeId: number, eventId: number) {
  const sessions = await sql<{ id: number }>(
    tx,
    'update sessions set revoked_at = now() where user_id = ? and revoked_at is null returning id',
    [subjectId],
  );
  const matches = await sql<{ id: number; intent: Intent; other_id: number }>(
    tx,
    `select m.id, m.intent, case when m.user1_id = ? then m.user2_id else m.user1_id end as other_id
       from matches m where (m.user1_id = ? or m.user2_id = ?) and m.mutual_at is not null and m.unmatched_at is null`,
    [subjectId, subjectId, subjectId],
  );
  const notice = await noticeById(tx, noticeId);
  if (notice) {
    deps.effects.emit(
      'moderation:notice',
      { notice, appealToken: notice.canAppeal ? appealToken(deps.config.tokenKey, subjectId, eventId) : null },
      { userId: subjectId },
    );
  }
  for (const match of matches) {
    deps.effects.emit(
      'match:removed',
      { matchId: match.id, intent: match.intent, reason: 'suspended' },
      { userIds: [match.other_id, subjectId] },
    );
  }
  deps.effects.pushBadges(matches.map((m) => m.other_id));
  deps.effects.endSessions(
    sessions.map((s) => s.id),
    'suspended',
  );
}

/** Sends the person their statement of reasons now, on every tab. */
async function tellNow(deps: Deps, tx: EntityManager, subjectId: number, noticeId: number) {
  const notice = await noticeById(tx, noticeId);
  if (notice) deps.effects.emit('moderation:notice', { notice, appealToken: null }, { userId: subjectId });
}

/**
 * Acts on a reported person: one transaction holding their claim and their row, the event, what it
 * changes, the closing of their open reports, the notice, and the live effects after the commit.
 */
export async function act(
  deps: Deps,
  em: EntityManager,
  moderator: Moderator,
  subjectId: number,
  body: ModerationActionBody,
): Promise<{ event: ReturnType<typeof toEvent>; subject: QueueSubject }> {
  if (body.kind === 'suspend' && !body.days) throw badRequest(MODERATION_TEXTS.suspendDays);
  const media = { withhold: [] as string[], release: [] as string[] };
  const event = await deps.effects.transactional(em, async (tx) => {
    const before = await subjectSummary(tx, subjectId);
    if (!before) throw notFound('Nobody with this id has been reported.');
    await holdClaim(tx, moderator.userId, subjectId);
    if (before.state === 'escalated' && moderator.role !== 'admin') {
      throw forbidden('This person was escalated to an admin; an admin decides.');
    }
    const [person] = await sql<{ id: number; feed_hidden: string | null }>(
      tx,
      'select id, feed_hidden from users where id = ? for update',
      [subjectId],
    );
    const needsAccount = body.kind !== 'dismiss' && body.kind !== 'escalate';
    if (!person && needsAccount) {
      throw conflict('This account was deleted; its reports can only be dismissed or escalated.');
    }
    const base = {
      subjectId,
      moderatorId: moderator.userId,
      reason: body.reason,
      rule: body.rule,
      explanation: body.explanation,
    };
    let recorded: EventRow;
    if (body.kind === 'undo') {
      const target = await latestInForce(tx, subjectId);
      if (!target) throw conflict(MODERATION_TEXTS.nothingToUndo);
      media.release = await reverseEffects(tx, target);
      recorded = await recordEvent(tx, { ...base, kind: 'undo', reversesId: target.id });
    } else if (body.kind === 'suspend') {
      const [until] = await sql<{ until: Date }>(
        tx,
        'update users set suspended_until = now() + make_interval(days => ?) where id = ? returning suspended_until as until',
        [body.days, subjectId],
      );
      recorded = await recordEvent(tx, { ...base, kind: 'suspend', endsAt: until?.until ?? null });
    } else if (body.kind === 'ban') {
      await sql(tx, 'update users set banned_at = now() where id = ?', [subjectId]);
      media.withhold = await mediaUrlsOf(tx, subjectId);
      recorded = await recordEvent(tx, { ...base, kind: 'ban' });
    } else if (body.kind === 'hide') {
      await sql(tx, `update users set feed_hidden = 'moderator' where id = ?`, [subjectId]);
      recorded = await recordEvent(tx, { ...base, kind: 'hide' });
    } else {
      recorded = await recordEvent(tx, { ...base, kind: body.kind });
    }
    if (body.kind === 'escalate') {
      // An admin takes it from here.
      await sql(tx, 'delete from moderation_claims where subject_id = ?', [subjectId]);
      return recorded;
    }
    // A decision: the automatic hide ends with it (a hide keeps the person hidden, by the moderator now).
    if (person?.feed_hidden === 'automatic' && body.kind !== 'hide') {
      await sql(tx, `update users set feed_hidden = null where id = ? and feed_hidden = 'automatic'`, [subjectId]);
    }
    // The claim stays with whoever decided (until released or stale): a second moderator who
    // opened the same person meanwhile is told, rather than acting twice.
    await sql(tx, 'update reports set closed_at = now() where reported_id = ? and closed_at is null', [subjectId]);
    if (body.kind === 'dismiss' || !person) return recorded;
    const noticeId = await addNotice(tx, subjectId, recorded.id, 'action');
    if (body.kind === 'suspend' || body.kind === 'ban') {
      await removeFromApp(deps, tx, subjectId, noticeId, recorded.id);
    } else {
      await tellNow(deps, tx, subjectId, noticeId);
    }
    return recorded;
  });
  await withhold(deps.redis, media.withhold);
  await releaseMedia(deps.redis, media.release);
  const [named] = await sql<EventRow>(em, `select ${EVENT_COLUMNS} from moderation_events e where e.id = ?`, [
    event.id,
  ]);
  return { event: toEvent(named ?? event), subject: (await subjectSummary(em, subjectId)) as QueueSubject };
}

// --- appeals ---

/** Files the person's appeal of one action taken against them (once per action). */
export async function fileAppeal(em: EntityManager, userId: number, eventId: number, text: string): Promise<void> {
  const [action] = await sql<{ kind: string; reversed: boolean }>(
    em,
    `select e.kind, exists (select 1 from moderation_events r where r.reverses_id = e.id) as reversed
       from moderation_events e where e.id = ? and e.subject_id = ?`,
    [eventId, userId],
  );
  if (!action) throw notFound('There is no such decision about you.');
  if (!(STRIKE_ACTIONS as readonly string[]).includes(action.kind) || action.reversed) {
    throw conflict(MODERATION_TEXTS.notAppealable);
  }
  try {
    await sql(em, `insert into appeals (event_id, user_id, text, state, created_at) values (?, ?, ?, 'open', now())`, [
      eventId,
      userId,
      text,
    ]);
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw conflict(MODERATION_TEXTS.alreadyAppealed);
    throw error;
  }
}

/** An appeal from someone who cannot sign in: the token of their refused sign-in names them and the action. */
export async function fileAppealWithToken(
  deps: Pick<AppDeps, 'config'>,
  em: EntityManager,
  token: string,
  text: string,
) {
  const { userId, eventId } = readAppealToken(deps.config.tokenKey, token);
  await fileAppeal(em, userId, eventId, text);
}

/**
 * Decides an appeal: never by the moderator who took the action. Reversed, the action's effects are
 * taken back; either way the person is told the outcome and why.
 */
export async function decideAppeal(
  deps: Deps,
  em: EntityManager,
  moderator: Moderator,
  appealId: number,
  body: { outcome: 'upheld' | 'reversed'; explanation: string },
): Promise<void> {
  let released: string[] = [];
  await deps.effects.transactional(em, async (tx) => {
    const [appeal] = await sql<{ id: number; state: string; user_id: number | null; event_id: number }>(
      tx,
      'select id, state, user_id, event_id from appeals where id = ? for update',
      [appealId],
    );
    if (!appeal) throw notFound('No such appeal.');
    const [action] = await sql<EventRow>(tx, 'select * from moderation_events where id = ?', [appeal.event_id]);
    if (!action) throw notFound('No such appeal.');
    if (action.moderator_id === moderator.userId) throw new HttpError(403, 'forbidden', MODERATION_TEXTS.ownAppeal);
    if (appeal.state !== 'open') throw conflict(MODERATION_TEXTS.appealDecided);
    // The person's row, so a reversal and another action on them take turns.
    await sql(tx, 'select id from users where id = ? for update', [action.subject_id]);
    const reversed = body.outcome === 'reversed';
    const inForce = reversed
      ? (await sql(tx, 'select 1 from moderation_events r where r.reverses_id = ?', [action.id])).length === 0
      : false;
    if (inForce) released = await reverseEffects(tx, action);
    const decision = await recordEvent(tx, {
      subjectId: action.subject_id,
      moderatorId: moderator.userId,
      kind: reversed ? 'appealReversed' : 'appealUpheld',
      reason: action.reason,
      rule: action.rule,
      explanation: body.explanation,
      reversesId: inForce ? action.id : null,
    });
    await sql(
      tx,
      `update appeals set state = ?, decided_by = ?, decision_event_id = ?, decision_explanation = ?, decided_at = now()
        where id = ?`,
      [body.outcome, moderator.userId, decision.id, body.explanation, appeal.id],
    );
    if (appeal.user_id !== null) {
      // The outcome replaces the statement of the action it decided, if that one is still unread.
      await sql(tx, 'update moderation_notices set seen_at = now() where event_id = ? and seen_at is null', [
        action.id,
      ]);
      const noticeId = await addNotice(tx, appeal.user_id, decision.id, 'appealOutcome', appeal.id);
      await tellNow(deps, tx, appeal.user_id, noticeId);
    }
  });
  await releaseMedia(deps.redis, released);
}

// --- automatic triage ---

/**
 * After a report: the same person reported by AUTO_HIDE_REPORTERS distinct people within a day is
 * hidden from new feeds until a moderator decides. Runs in the report's transaction with the
 * reported person's row locked, so reports arriving together are counted one after another.
 */
export async function hideIfManyReported(tx: EntityManager, reportedId: number, reason: ReportReason): Promise<void> {
  const [person] = await sql<{ feed_hidden: string | null }>(
    tx,
    'select feed_hidden from users where id = ? for update',
    [reportedId],
  );
  if (!person || person.feed_hidden !== null) return;
  const [counted] = await sql<{ reporters: number }>(
    tx,
    `select count(distinct reporter_id)::int as reporters from reports
      where reported_id = ? and closed_at is null and created_at > now() - interval '1 day'`,
    [reportedId],
  );
  if ((counted?.reporters ?? 0) < AUTO_HIDE_REPORTERS) return;
  await sql(tx, `update users set feed_hidden = 'automatic' where id = ?`, [reportedId]);
  await recordEvent(tx, {
    subjectId: reportedId,
    moderatorId: null,
    kind: 'autoHide',
    reason,
    rule: null,
    explanation: `Hidden from new feeds after ${counted?.reporters} people reported them within a day, until a moderator decides.`,
  });
}
