// Moderation end to end over HTTP and sockets against real PostgreSQL and Redis (docs/moderation.md):
// a report with its evidence reaches the queue, a suspension ends the person's sessions live and
// takes them out of the other side's matches, their sign-in is refused with the end date, they
// appeal with the refusal's token, another moderator reverses it and they are told. Also: claims
// under concurrency, automatic hiding, the audit log's immutability and the transparency counts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { MODERATION_TEXTS, type SubjectDetail } from '@shared/index';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { mutualPair, type Person, person, sendRest } from '../../test/chat-flow';
import { shareAShow } from '../../test/feed-fixture';
import { collectEvents, nextEvent, startTestServer, type TestServer, until } from '../../test/harness';
import { testDatabaseUrl } from '../../test/test-stack';

const run = promisify(execFile);

describe('moderation', () => {
  let server: TestServer;
  let em: () => EntityManager;

  beforeAll(async () => {
    server = await startTestServer();
    em = () => server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(() => server.close());

  async function moderator(role: 'moderator' | 'admin' = 'moderator'): Promise<Person> {
    const who = await person(server);
    await sql(em(), 'update users set role = ? where id = ?', [role, who.id]);
    return who;
  }
  const call = (who: Person, method: string, path: string, body?: unknown) =>
    server.call(method, path, { token: who.token, body });
  const suspendFor = (days: number) => ({
    kind: 'suspend',
    reason: 'harassment',
    rule: 'respect',
    explanation: 'You sent threatening messages to another member.',
    days,
  });

  it('npm run admin grants, lists and revokes a role; a route never can', async () => {
    const someone = await server.login();
    const admin = async (...args: string[]) =>
      (
        await run(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args], {
          env: { ...process.env, DATABASE_URL: testDatabaseUrl() },
        })
      ).stdout;
    expect(await admin('grant', someone.user.username.toUpperCase(), 'moderator')).toContain('is now a moderator');
    expect(await admin('list')).toContain(`moderator\t${someone.user.username}`);
    const me = await server.call('GET', `/api/users/${someone.user.id}`, { token: someone.token });
    expect(me.json.role).toBe('moderator');
    expect((await server.call('GET', '/api/moderation/queue', { token: someone.token })).status).toBe(200);
    expect(await admin('revoke', someone.user.username)).toContain('has no moderation role now');
    expect((await server.call('GET', '/api/moderation/queue', { token: someone.token })).status).toBe(404);
    await expect(admin('grant', someone.user.username, 'superuser')).rejects.toThrow(/Usage/);
    // Nothing in the profile update can set a role.
    const update = await server.call('PUT', `/api/users/${someone.user.id}`, {
      token: someone.token,
      body: { role: 'admin' },
    });
    expect(update.status).toBe(400);
  });

  it('a reported harasser is suspended: their tabs end with the statement, they leave the other side, sign-in is refused, an appeal by another moderator reverses it', async () => {
    const { a: victim, b: harasser, matchId } = await mutualPair(server);
    for (const text of ['hey', 'answer me', 'you will regret ignoring me']) {
      expect((await sendRest(server, harasser, matchId, text)).status).toBe(201);
    }
    const report = await call(victim, 'POST', '/api/reports', {
      reportedId: harasser.id,
      matchId,
      reason: 'harassment',
      details: 'Threats after I stopped answering.',
    });
    expect(report.status).toBe(201);

    const [first, second] = await Promise.all([moderator(), moderator()]);
    const queue = await call(first, 'GET', '/api/moderation/queue?reason=harassment');
    const entry = queue.json.subjects.find((s: { subjectId: number }) => s.subjectId === harasser.id);
    expect(entry).toMatchObject({ reporterCount: 1, state: 'open', reasons: [{ reason: 'harassment', count: 1 }] });
    const detail: SubjectDetail = (await call(first, 'GET', `/api/moderation/subjects/${harasser.id}`)).json;
    expect(detail.reports[0]?.messages.map((m) => m.content)).toEqual([
      'hey',
      'answer me',
      'you will regret ignoring me',
    ]);
    expect(detail.reports[0]?.reporter?.id).toBe(victim.id);
    expect(detail.reports[0]?.profile?.displayName).toEqual(expect.any(String));
    expect(detail.suggestion).toBe('warn');

    const harasserSocket = await server.socket(harasser.token);
    const victimSocket = await server.socket(victim.token);
    const notice = nextEvent(harasserSocket, 'moderation:notice');
    const ended = nextEvent(harasserSocket, 'session:ended');
    const removed = nextEvent(victimSocket, 'match:removed');
    const gone = new Promise((resolve) => harasserSocket.once('disconnect', resolve));
    const acted = await call(first, 'POST', `/api/moderation/subjects/${harasser.id}/actions`, suspendFor(7));
    expect(acted.status, acted.text).toBe(201);
    const [{ notice: statement, appealToken: liveToken }] = await notice;
    expect(statement.action).toMatchObject({ kind: 'suspend', rule: 'respect', reason: 'harassment' });
    expect(statement.action.ruleText).toContain('respect');
    expect(statement.canAppeal).toBe(true);
    expect(liveToken).toEqual(expect.any(String));
    expect((await ended)[0]).toBe('suspended');
    await gone;
    expect((await removed)[0]).toEqual({ matchId, intent: 'romantic', reason: 'suspended' });
    // Gone from the victim's matches and chat; the harasser's token is dead.
    const matches = await call(victim, 'GET', `/api/users/${victim.id}/matches?intent=romantic`);
    expect(matches.json.map((m: { id: number }) => m.id)).not.toContain(matchId);
    expect((await call(victim, 'GET', `/api/users/${victim.id}/matches/${matchId}/messages`)).status).toBe(404);
    expect((await call(harasser, 'GET', `/api/users/${harasser.id}`)).status).toBe(401);

    // Sign-in refused with the end date, and a token to appeal with.
    const [row] = await sql<{ username: string }>(em(), 'select username from users where id = ?', [harasser.id]);
    const username = row?.username as string;
    const refused = await server.call('POST', '/api/auth/dev-login', { body: { username } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: 'suspended', until: acted.json.event.endsAt });
    expect(refused.json.message).toMatch(/suspended until \d{1,2} \w+ \d{4}/);
    const appeal = await server.call('POST', '/api/appeals', {
      body: { token: refused.json.appealToken, text: 'I was angry, but I never threatened anyone.' },
    });
    expect(appeal.status, appeal.text).toBe(201);
    const again = await server.call('POST', '/api/appeals', {
      body: { token: refused.json.appealToken, text: 'Please, once more.' },
    });
    expect(again.json.message).toBe(MODERATION_TEXTS.alreadyAppealed);

    // Not the moderator who acted: it is not in their list, and deciding it is refused.
    const mine = await call(first, 'GET', '/api/moderation/appeals');
    expect(mine.json.appeals.map((a: { subjectId: number }) => a.subjectId)).not.toContain(harasser.id);
    const theirs = await call(second, 'GET', '/api/moderation/appeals');
    const open = theirs.json.appeals.find((a: { subjectId: number }) => a.subjectId === harasser.id);
    expect(open.text).toContain('never threatened');
    const own = await call(first, 'POST', `/api/moderation/appeals/${open.id}`, {
      outcome: 'upheld',
      explanation: 'The messages speak for themselves.',
    });
    expect(own.status).toBe(403);
    expect(own.json.message).toBe(MODERATION_TEXTS.ownAppeal);
    const reversed = await call(second, 'POST', `/api/moderation/appeals/${open.id}`, {
      outcome: 'reversed',
      explanation: 'On a second look the messages were rude but not a threat.',
    });
    expect(reversed.status, reversed.text).toBe(200);
    expect(reversed.json.state).toBe('reversed');

    // Back in: the outcome waits as a notice, and the match is back for the victim.
    const back = await server.login(username);
    const notices = await server.call('GET', `/api/users/${harasser.id}/notices`, { token: back.token });
    const outcome = notices.json.notices.find((n: { kind: string }) => n.kind === 'appealOutcome');
    expect(outcome.appeal).toEqual({ state: 'reversed', explanation: expect.stringContaining('second look') });
    const seen = await server.call('POST', `/api/users/${harasser.id}/notices/${outcome.id}/seen`, {
      token: back.token,
    });
    expect(seen.status).toBe(200);
    const after = await call(victim, 'GET', `/api/users/${victim.id}/matches?intent=romantic`);
    expect(after.json.map((m: { id: number }) => m.id)).toContain(matchId);
    // The history: the suspension, and the reversal that took it back.
    const history: SubjectDetail = (await call(second, 'GET', `/api/moderation/subjects/${harasser.id}`)).json;
    expect(history.events.map((e) => e.kind)).toEqual(['appealReversed', 'suspend']);
    expect(history.subject.state).toBe('closed');
  });

  it('keeps the reported messages after the harasser and then the reporter delete their accounts', async () => {
    const { a: victim, b: harasser, matchId } = await mutualPair(server);
    await sendRest(server, harasser, matchId, 'kept as evidence');
    await call(victim, 'POST', '/api/reports', { reportedId: harasser.id, matchId, reason: 'harassment' });
    const mod = await moderator();
    for (const who of [harasser, victim]) {
      const deleted = await call(who, 'DELETE', `/api/users/${who.id}`, { confirm: 'DELETE' });
      expect(deleted.status, deleted.text).toBe(200);
    }
    const detail: SubjectDetail = (await call(mod, 'GET', `/api/moderation/subjects/${harasser.id}`)).json;
    expect(detail.subject.accountDeleted).toBe(true);
    expect(detail.reports[0]?.messages.map((m) => m.content)).toEqual(['kept as evidence']);
    expect(detail.reports[0]?.reporter).toBeNull();
    // A deleted account can only be dismissed or escalated.
    const warn = await call(mod, 'POST', `/api/moderation/subjects/${harasser.id}/actions`, {
      kind: 'warn',
      reason: 'harassment',
      rule: 'respect',
      explanation: 'Threatening messages are not allowed here.',
    });
    expect(warn.status).toBe(409);
  });

  it('two moderators acting on the same ten people at once: one wins each, the other is told; 30 reports arriving meanwhile', async () => {
    const [m1, m2] = await Promise.all([moderator(), moderator()]);
    const reporters = await Promise.all(Array.from({ length: 4 }, () => person(server)));
    const subjects = await Promise.all(Array.from({ length: 10 }, () => person(server)));
    await shareAShow(reporters.flatMap((r) => subjects.map((s) => [r, s] as [Person, Person])));
    // One report each first, so each is in the queue; then 30 more arrive at once while moderators act.
    for (const s of subjects) {
      expect(
        (await call(reporters[0] as Person, 'POST', '/api/reports', { reportedId: s.id, reason: 'spam' })).status,
      ).toBe(201);
    }
    const warn = {
      kind: 'warn',
      reason: 'spam',
      rule: 'spam',
      explanation: 'Please stop sending the same link to everyone.',
    };
    const [acts, reports] = await Promise.all([
      Promise.all(
        subjects.flatMap((s) => [m1, m2].map((m) => call(m, 'POST', `/api/moderation/subjects/${s.id}/actions`, warn))),
      ),
      Promise.all(
        reporters
          .slice(1)
          .flatMap((r) => subjects.map((s) => call(r, 'POST', '/api/reports', { reportedId: s.id, reason: 'spam' }))),
      ),
    ]);
    expect([...acts, ...reports].filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    expect(reports).toHaveLength(30);
    expect(reports.map((r) => r.status)).toEqual(reports.map(() => 201));
    for (let i = 0; i < subjects.length; i++) {
      const pair = [acts[2 * i], acts[2 * i + 1]];
      expect(pair.map((r) => r?.status).sort()).toEqual([201, 409]);
      expect(pair.find((r) => r?.status === 409)?.json.message).toBe(MODERATION_TEXTS.claimedByOther);
    }
    const counts = await sql<{ subject_id: number; warns: number; reports: number }>(
      em(),
      `select s.id as subject_id,
              (select count(*)::int from moderation_events e where e.subject_id = s.id and e.kind = 'warn') as warns,
              (select count(*)::int from reports r where r.reported_id = s.id) as reports
         from users s where s.id = any(?::int[])`,
      [`{${subjects.map((s) => s.id).join(',')}}`],
    );
    expect(counts.map((c) => [c.warns, c.reports])).toEqual(subjects.map(() => [1, 4]));
  });

  it('twelve people appeal at once and two moderators decide every appeal at the same moment: one decision each, no 5xx', async () => {
    const [acting, m1, m2] = await Promise.all([moderator(), moderator(), moderator()]);
    const reporter = await person(server);
    const people = await Promise.all(Array.from({ length: 12 }, () => person(server)));
    await shareAShow(people.map((p) => [reporter, p] as [Person, Person]));
    const warn = { kind: 'warn', reason: 'spam', rule: 'spam', explanation: 'Please stop advertising here.' };
    for (const p of people) {
      await call(reporter, 'POST', '/api/reports', { reportedId: p.id, reason: 'spam' });
      expect((await call(acting, 'POST', `/api/moderation/subjects/${p.id}/actions`, warn)).status).toBe(201);
    }
    const notices = await Promise.all(people.map((p) => call(p, 'GET', `/api/users/${p.id}/notices`)));
    const appeals = await Promise.all(
      people.map((p, i) =>
        call(p, 'POST', `/api/users/${p.id}/appeals`, {
          actionId: notices[i]?.json.notices[0].action.id,
          text: 'That link was to my own podcast, not an ad.',
        }),
      ),
    );
    expect(appeals.map((r) => r.status)).toEqual(people.map(() => 201));
    const open = (await call(m1, 'GET', '/api/moderation/appeals')).json.appeals.filter((a: { subjectId: number }) =>
      people.some((p) => p.id === a.subjectId),
    );
    expect(open).toHaveLength(12);
    const decisions = await Promise.all(
      open.flatMap((a: { id: number }) =>
        [m1, m2].map((m, i) =>
          call(m, 'POST', `/api/moderation/appeals/${a.id}`, {
            outcome: i ? 'upheld' : 'reversed',
            explanation: 'Looked at the link and the messages again.',
          }),
        ),
      ),
    );
    expect(decisions.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);
    for (let i = 0; i < open.length; i++) {
      const pair = [decisions[2 * i], decisions[2 * i + 1]];
      expect(pair.map((r) => r?.status).sort()).toEqual([200, 409]);
      expect(pair.find((r) => r?.status === 409)?.json.message).toBe(MODERATION_TEXTS.appealDecided);
    }
    // One outcome each, told once.
    const outcomes = await sql<{ n: number }>(
      em(),
      `select count(*)::int as n from moderation_notices where kind = 'appealOutcome' and user_id = any(?::int[])`,
      [`{${people.map((p) => p.id).join(',')}}`],
    );
    expect(outcomes[0]?.n).toBe(12);
  });

  it('hides a person from new feeds after three distinct reporters, not after one reporter three times', async () => {
    const target = await person(server);
    const reporters = await Promise.all(Array.from({ length: 3 }, () => person(server)));
    const viewer = await person(server);
    await shareAShow([...reporters, viewer].map((r) => [r, target] as [Person, Person]));
    const feedHas = async () =>
      (await call(viewer, 'GET', `/api/users/${viewer.id}/feed?intent=romantic`)).json.some(
        (card: { id: number }) => card.id === target.id,
      );
    expect(await feedHas()).toBe(true);
    // The same reporter three times is one report.
    for (let i = 0; i < 3; i++)
      await call(reporters[0] as Person, 'POST', '/api/reports', { reportedId: target.id, reason: 'spam' });
    expect(await feedHas()).toBe(true);
    // Two more people, at the same moment.
    await Promise.all(
      reporters.slice(1).map((r) => call(r, 'POST', '/api/reports', { reportedId: target.id, reason: 'fake_profile' })),
    );
    expect(await feedHas()).toBe(false);
    const mod = await moderator();
    const queue = await call(mod, 'GET', '/api/moderation/queue');
    const entry = queue.json.subjects.find((s: { subjectId: number }) => s.subjectId === target.id);
    expect(entry.standing).toMatchObject({ autoHidden: true, hiddenFromFeeds: true });
    expect(entry.reporterCount).toBe(3);
    // A moderator's dismissal ends the automatic hide.
    const dismissed = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, {
      kind: 'dismiss',
      reason: 'spam',
      rule: 'spam',
      explanation: 'Looked at the profile: nothing against the rules.',
    });
    expect(dismissed.status).toBe(201);
    expect(await until(feedHas, 'the person back in the feed')).toBe(true);
  });

  it('a warning waits for the person as a statement of reasons; undo takes a hide back', async () => {
    const target = await person(server);
    const reporter = await person(server);
    await shareAShow([[reporter, target]]);
    await call(reporter, 'POST', '/api/reports', { reportedId: target.id, reason: 'inappropriate' });
    const mod = await moderator();
    const socket = await server.socket(target.token);
    const live = nextEvent(socket, 'moderation:notice');
    const hide = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, {
      kind: 'hide',
      reason: 'inappropriate',
      rule: 'consent',
      explanation: 'Your profile picture is not allowed here.',
    });
    expect(hide.status).toBe(201);
    expect((await live)[0].notice.action.kind).toBe('hide');
    const notices = (await call(target, 'GET', `/api/users/${target.id}/notices`)).json.notices;
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      kind: 'action',
      canAppeal: true,
      action: { kind: 'hide', rule: 'consent', explanation: 'Your profile picture is not allowed here.' },
    });
    const [hidden] = await sql<{ feed_hidden: string | null }>(em(), 'select feed_hidden from users where id = ?', [
      target.id,
    ]);
    expect(hidden?.feed_hidden).toBe('moderator');
    // No new matches: nobody sees them, and they see nobody new.
    const ownFeed = await call(target, 'GET', `/api/users/${target.id}/feed?intent=romantic`);
    expect(ownFeed.json).toEqual([]);
    const theirFeed = await call(reporter, 'GET', `/api/users/${reporter.id}/feed?intent=romantic`);
    expect(theirFeed.json.map((card: { id: number }) => card.id)).not.toContain(target.id);
    // Another person's notices and another person's "seen" are refused.
    expect((await call(reporter, 'GET', `/api/users/${target.id}/notices`)).status).toBe(403);
    expect((await call(reporter, 'POST', `/api/users/${reporter.id}/notices/${notices[0].id}/seen`)).status).toBe(404);
    const undo = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, {
      kind: 'undo',
      reason: 'inappropriate',
      rule: 'consent',
      explanation: 'The picture was fine after all; sorry.',
    });
    expect(undo.status, undo.text).toBe(201);
    const [shown] = await sql<{ feed_hidden: string | null }>(em(), 'select feed_hidden from users where id = ?', [
      target.id,
    ]);
    expect(shown?.feed_hidden).toBeNull();
    const nothing = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, {
      kind: 'undo',
      reason: 'inappropriate',
      rule: 'consent',
      explanation: 'Undo once more, to see it refused.',
    });
    expect(nothing.json.message).toBe(MODERATION_TEXTS.nothingToUndo);
    const log = collectEvents(socket, 'session:ended');
    expect(log).toEqual([]);
  });

  it('a ban stops serving the person’s pictures; undoing it serves them again', async () => {
    const target = await person(server);
    const reporter = await person(server);
    await shareAShow([[reporter, target]]);
    const picture = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#884422' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('profilePicture', new Blob([new Uint8Array(picture)]), 'me.png');
    const uploaded = await server.call('POST', `/api/users/${target.id}/profile-picture`, {
      token: target.token,
      form,
    });
    expect(uploaded.status, uploaded.text).toBe(200);
    const url = uploaded.json.profilePicture as string;
    expect((await fetch(`${server.url}${url}`)).status).toBe(200);
    await call(reporter, 'POST', '/api/reports', { reportedId: target.id, reason: 'fake_profile' });
    const mod = await moderator();
    const decision = {
      reason: 'fake_profile',
      rule: 'authenticity',
      explanation: 'This profile impersonates someone.',
    };
    const ban = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, { kind: 'ban', ...decision });
    expect(ban.status, ban.text).toBe(201);
    expect((await fetch(`${server.url}${url}`)).status).toBe(404);
    const [row] = await sql<{ username: string }>(em(), 'select username from users where id = ?', [target.id]);
    const refused = await server.call('POST', '/api/auth/dev-login', { body: { username: row?.username } });
    expect(refused.json).toMatchObject({ error: 'suspended', until: null, message: expect.stringContaining('banned') });
    const undo = await call(mod, 'POST', `/api/moderation/subjects/${target.id}/actions`, {
      kind: 'undo',
      ...decision,
    });
    expect(undo.status, undo.text).toBe(201);
    expect((await fetch(`${server.url}${url}`)).status).toBe(200);
  });

  it('the audit log cannot be edited, and admins read it and the transparency counts', async () => {
    const admin = await moderator('admin');
    const mod = await moderator();
    expect((await call(mod, 'GET', '/api/admin/audit-log')).status).toBe(404);
    const log = await call(admin, 'GET', '/api/admin/audit-log');
    expect(log.status).toBe(200);
    const newest = log.json.events[0];
    expect(newest).toMatchObject({ id: expect.any(Number), kind: expect.any(String) });
    await expect(
      sql(em(), 'update moderation_events set explanation = ? where id = ?', ['edited', newest.id]),
    ).rejects.toThrow(/append-only/);
    await expect(sql(em(), 'delete from moderation_events where id = ?', [newest.id])).rejects.toThrow(/append-only/);
    const report = await call(admin, 'GET', '/api/admin/transparency');
    expect(report.status).toBe(200);
    expect(report.json.actionsByKind.suspend).toBeGreaterThanOrEqual(1);
    expect(report.json.reportsByReason.harassment).toBeGreaterThanOrEqual(1);
    expect(report.json.appeals.reversed).toBeGreaterThanOrEqual(1);
    expect(report.json.automaticHides).toBeGreaterThanOrEqual(1);
    expect(report.json.medianHoursToAction).toEqual(expect.any(Number));
    expect((await call(admin, 'GET', '/api/admin/transparency?from=2026-12-01&to=2026-01-01')).status).toBe(400);
  });
});
