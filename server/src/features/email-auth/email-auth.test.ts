// Email codes (docs/auth.md, "Email codes") against a real SMTP server started here (smtp-server),
// every message parsed (mailparser): sign-up and sign-in by code, wrong tries and the lock, single
// use, expiry, the same answer for known and unknown addresses, linking an address and
// re-authenticating by code. Real PostgreSQL and Redis.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  EMAIL_AUTH_TEXTS,
  EMAIL_CODE_ERRORS,
  jobs,
  type LoginResponse,
  SelfUserSchema,
  SignInWaysSchema,
} from '@shared/index';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserIdentitySchema } from '../../core/db/entities';
import { sql } from '../../core/db/sql';
import { startTestServer, type TestServer, testEnv, uniqueName, until } from '../../test/harness';
import { SmtpStandIn } from '../../test/smtp-stand-in';
import { REAUTH_REQUIRED_CODE } from '../auth/reauth';
import { createUser } from '../users/user.service';

const MAIL_FROM = 'PodMatch Test <codes@podmatch.test>';
const newAddress = () => `${uniqueName('mail')}@example.com`;
/** A code that is not `right`. */
const wrongFor = (right: string) => (right === '000000' ? '111111' : '000000');

describe('sign-in with emailed codes', () => {
  let smtp: SmtpStandIn;
  let server: TestServer;
  let em: () => EntityManager;

  beforeAll(async () => {
    smtp = await SmtpStandIn.start({ user: 'podmatch', pass: 's3cret:with@odd/chars' });
    server = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM });
    em = () => server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const ask = (email: string) => server.call('POST', '/api/auth/email/code', { body: { email } });
  const verify = (email: string, code: string) =>
    server.call('POST', '/api/auth/email/verify', { body: { email, code } });

  /** Asks for a code for `email` and answers it, from the message the SMTP server received. */
  async function codeFor(email: string): Promise<string> {
    const before = smtp.to(email).length;
    const res = await ask(email);
    expect(res.status, res.text).toBe(200);
    return smtp.code(email, before + 1);
  }

  async function signUp(email = newAddress()): Promise<LoginResponse & { email: string }> {
    const res = await verify(email, await codeFor(email));
    expect(res.status, res.text).toBe(200);
    return { ...(res.json as LoginResponse), email };
  }

  it('signs up a new address by code (an account, its email identity, its portrait), then signs it in to the same account', async () => {
    const email = `${uniqueName('Maya.Smith')}+news@Example.com`;
    const normalized = email.toLowerCase();
    const asked = await ask(` ${email} `);
    expect(asked.status).toBe(200);
    expect(asked.json).toEqual({ ok: true, expiresInMinutes: 10 });

    const mail = await smtp.message(normalized);
    expect(mail.from).toBe('"PodMatch Test" <codes@podmatch.test>');
    expect(mail.toHeader).toBe(normalized);
    expect(mail.code).toMatch(/^\d{6}$/);
    expect(mail.subject).toBe(`${mail.code} is your PodMatch code`);
    expect(mail.text).toContain('expires in 10 minutes');
    expect(mail.text).toContain('you can ignore this email');
    expect(mail.html).toContain(mail.code);

    const first = await verify(email, mail.code as string);
    expect(first.status, first.text).toBe(200);
    const user = SelfUserSchema.parse(first.json.user);
    expect(first.json.token).toMatch(/^[\w-]{40,}$/);
    expect(user.displayName).toBe('Maya');
    expect(user.username).toMatch(/^listener_[0-9a-f]{10}$/);
    expect(user.setupComplete).toBe(false);
    const me = await server.call('GET', `/api/users/${user.id}`, { token: first.json.token });
    expect(me.status).toBe(200);
    // The address is among the person's data (docs/privacy.md).
    const exported = await server.call('GET', `/api/users/${user.id}/export`, { token: first.json.token });
    expect(exported.json.email).toBe(normalized);

    const [row] = await sql<{ sign_up_method: string; subject: string; last_used_at: string | null }>(
      em(),
      `select u.sign_up_method, i.subject, i.last_used_at from users u join user_identities i on i.user_id = u.id
       where u.id = ? and i.provider = 'email'`,
      [user.id],
    );
    expect(row).toMatchObject({ sign_up_method: 'email', subject: normalized });
    expect(row?.last_used_at).not.toBeNull();

    // Its portrait was queued with the account (the outbox, relayed after the commit).
    const redis = new Redis(testEnv().REDIS_URL as string, { maxRetriesPerRequest: null });
    const avatars = new Queue(jobs.avatarGenerate.queue, { connection: redis });
    try {
      await until(
        async () =>
          (await avatars.getJobs(['waiting', 'delayed', 'active', 'completed'])).some(
            (job) => job?.data.userId === user.id,
          ),
        'the portrait job of the new account',
      );
    } finally {
      await avatars.close();
      redis.disconnect();
    }

    // The same address again, in other capitals: the same account, a new login.
    const again = await verify(normalized.toUpperCase(), await codeFor(normalized.toUpperCase()));
    expect(again.status, again.text).toBe(200);
    expect(again.json.user.id).toBe(user.id);
    expect(again.json.token).not.toBe(first.json.token);
    const [{ accounts }] = (await sql<{ accounts: string }>(
      em(),
      `select count(*) as accounts from user_identities where provider = 'email' and subject = ?`,
      [normalized],
    )) as [{ accounts: string }];
    expect(Number(accounts)).toBe(1);
  });

  it('counts wrong tries: four say how many are left, the fifth ends the code, and then even the right code is refused', async () => {
    const email = newAddress();
    const right = await codeFor(email);
    const wrong = wrongFor(right);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await verify(email, wrong));
    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    expect(answers.map((r) => r.json.message)).toEqual([
      'That code is not right. 4 tries left.',
      'That code is not right. 3 tries left.',
      'That code is not right. 2 tries left.',
      'That code is not right. 1 try left.',
      'Too many wrong tries. Ask for a new code.',
    ]);
    expect(answers.map((r) => r.json.error)).toEqual([
      ...Array(4).fill(EMAIL_CODE_ERRORS.wrong),
      EMAIL_CODE_ERRORS.locked,
    ]);
    const locked = await verify(email, right);
    expect(locked.status).toBe(400);
    expect(locked.json).toEqual({ error: EMAIL_CODE_ERRORS.locked, message: EMAIL_AUTH_TEXTS.locked });
    // Nobody got in: no account for this address.
    const rows = await sql(em(), `select 1 from user_identities where provider = 'email' and subject = ?`, [email]);
    expect(rows).toHaveLength(0);
    // A new code works.
    const fresh = await verify(email, await codeFor(email));
    expect(fresh.status, fresh.text).toBe(200);
  });

  it('counts 20 wrong tries sent at once exactly: four with tries left, then locked, and the right code is refused', async () => {
    const email = newAddress();
    const right = await codeFor(email);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(email, wrongFor(right))));
    expect(answers.every((r) => r.status === 400)).toBe(true);
    const errors = answers.map((r) => r.json.error);
    console.log(
      `[email codes] 20 wrong tries at once: ${errors.filter((e) => e === EMAIL_CODE_ERRORS.wrong).length} with tries left, ${errors.filter((e) => e === EMAIL_CODE_ERRORS.locked).length} locked`,
    );
    expect(errors.filter((e) => e === EMAIL_CODE_ERRORS.wrong)).toHaveLength(4);
    expect(errors.filter((e) => e === EMAIL_CODE_ERRORS.locked)).toHaveLength(16);
    expect(new Set(answers.map((r) => r.json.message))).toEqual(
      new Set([...[4, 3, 2, 1].map((n) => EMAIL_AUTH_TEXTS.wrong(n)), EMAIL_AUTH_TEXTS.locked]),
    );
    const [row] = await sql<{ attempts: number }>(em(), `select attempts from email_codes where email = ?`, [email]);
    expect(row?.attempts).toBe(5);
    expect((await verify(email, right)).json.error).toBe(EMAIL_CODE_ERRORS.locked);
  });

  it('refuses a code used once already, and a code replaced by a newer one', async () => {
    const { email } = await signUp();
    const code = await codeFor(email);
    expect((await verify(email, code)).status).toBe(200);
    const reused = await verify(email, code);
    expect(reused.status).toBe(400);
    expect(reused.json).toEqual({ error: EMAIL_CODE_ERRORS.used, message: EMAIL_AUTH_TEXTS.used });

    const older = await codeFor(email);
    const newer = await codeFor(email);
    if (older !== newer) {
      const replaced = await verify(email, older);
      expect(replaced.status).toBe(400);
      expect(replaced.json.error).toBe(EMAIL_CODE_ERRORS.wrong);
    }
    expect((await verify(email, newer)).status).toBe(200);
    const live = await sql(em(), `select 1 from email_codes where email = ? and used_at is null`, [email]);
    expect(live).toHaveLength(0);
  });

  it('refuses an expired code (ten minutes), even the right one, and a code nobody was sent', async () => {
    const email = newAddress();
    const code = await codeFor(email);
    await sql(em(), `update email_codes set expires_at = now() - interval '1 second' where email = ?`, [email]);
    const expired = await verify(email, code);
    expect(expired.status).toBe(400);
    expect(expired.json).toEqual({ error: EMAIL_CODE_ERRORS.expired, message: EMAIL_AUTH_TEXTS.expired });

    const nobody = await verify(newAddress(), '123456');
    expect(nobody.status).toBe(400);
    expect(nobody.json).toEqual({ error: EMAIL_CODE_ERRORS.noCode, message: EMAIL_AUTH_TEXTS.noCode });
  });

  it('gives a code ten minutes', async () => {
    const email = newAddress();
    await codeFor(email);
    const [row] = await sql<{ lifetime: string }>(
      em(),
      `select extract(epoch from (expires_at - created_at)) as lifetime from email_codes where email = ?`,
      [email],
    );
    expect(Number(row?.lifetime)).toBe(600);
  });

  it('answers a known and an unknown address alike: the same status and body, a message each, and the same timing class', async () => {
    // An address with an account, made directly (not through the endpoints under test).
    const known = newAddress();
    await em().transactional(async (tx) => {
      const user = await createUser(tx, { username: uniqueName('known'), displayName: 'Known', signUpMethod: 'email' });
      tx.create(UserIdentitySchema, { user, provider: 'email', subject: known });
    });
    const rounds = 30;
    /** Per round, the unknown address's time over the known one's, asked back to back. */
    const pairRatios: number[] = [];
    const timings: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
    const bodies = new Set<string>();
    const statuses = new Set<number>();
    const unknowns: string[] = [];
    const knownBefore = smtp.to(known).length;
    const timed = async (kind: 'known' | 'unknown', email: string) => {
      const t0 = performance.now();
      const res = await ask(email);
      const ms = performance.now() - t0;
      timings[kind].push(ms);
      bodies.add(res.text);
      statuses.add(res.status);
      return ms;
    };
    for (let i = 0; i < rounds; i++) {
      const unknown = newAddress();
      unknowns.push(unknown);
      // Back to back, in turns first, so the load of the machine (other test files) weighs on
      // both of a pair alike.
      let k: number;
      let u: number;
      if (i % 2) {
        k = await timed('known', known);
        u = await timed('unknown', unknown);
      } else {
        u = await timed('unknown', unknown);
        k = await timed('known', known);
      }
      pairRatios.push(u / k);
    }
    expect([...statuses]).toEqual([200]);
    expect([...bodies]).toEqual([JSON.stringify({ ok: true, expiresInMinutes: 10 })]);
    // The same work for both: every request sent a message.
    await until(async () => smtp.to(known).length === knownBefore + rounds, 'the messages to the known address');
    for (const unknown of unknowns) await smtp.message(unknown);
    // Nobody was made an account by asking.
    const made = await sql(em(), `select 1 from user_identities where provider = 'email' and subject in (?)`, [
      unknowns,
    ]);
    expect(made).toHaveLength(0);

    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return (
        ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) / 2
      );
    };
    const ratio = median(pairRatios);
    console.log(
      `[email codes] ${rounds} pairs: median known ${median(timings.known).toFixed(1)} ms, unknown ${median(timings.unknown).toFixed(1)} ms, median unknown/known of a pair ${ratio.toFixed(2)}`,
    );
    // One timing class, within a factor of two either way: an unknown address that skipped the
    // mail stands apart by a whole SMTP exchange (measured 9x); smaller extra work for one kind is
    // caught above (a message each, no account made).
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('answers 503 with a sentence when the mail server refuses the message', async () => {
    smtp.refusing = true;
    try {
      const res = await ask(newAddress());
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ error: 'mail_unavailable', message: EMAIL_AUTH_TEXTS.notSent });
    } finally {
      smtp.refusing = false;
    }
  });

  it('refuses addresses and codes that are not well formed, with sentences', async () => {
    const badEmail = await ask('not-an-address');
    expect(badEmail.status).toBe(400);
    expect(badEmail.json.message).toBe('That does not look like an email address.');
    const badCode = await verify(newAddress(), '12345');
    expect(badCode.status).toBe(400);
    expect(badCode.json.message).toBe('The code is 6 digits.');
  });

  describe('linking an address and re-authenticating by code', () => {
    const linkStart = (who: LoginResponse, email: string, userId = who.user.id) =>
      server.call('POST', `/api/users/${userId}/email/code`, { token: who.token, body: { email } });
    const linkVerify = (who: LoginResponse, email: string, code: string) =>
      server.call('POST', `/api/users/${who.user.id}/email/verify`, { token: who.token, body: { email, code } });
    const reauthStart = (who: LoginResponse) =>
      server.call('POST', '/api/auth/reauth/email/code', { token: who.token });
    const reauthVerify = (who: LoginResponse, code: string) =>
      server.call('POST', '/api/auth/reauth/email/verify', { token: who.token, body: { code } });
    /** Makes the caller's login older than the re-authentication window. */
    const staleLogin = (who: LoginResponse) =>
      sql(em(), `update sessions set login_at = now() - interval '1 hour' where user_id = ?`, [who.user.id]);

    it('needs a fresh proof to change the address; a code to the current address gives it; the new address then signs in to the account and the old one is told', async () => {
      const person = await signUp();
      const next = newAddress();
      await staleLogin(person);
      const refused = await linkStart(person, next);
      expect(refused.status).toBe(403);
      expect(refused.json.error).toBe(REAUTH_REQUIRED_CODE);
      expect(smtp.to(next)).toHaveLength(0);

      // Confirm by a code sent to the account's own address.
      const before = smtp.to(person.email).length;
      const started = await reauthStart(person);
      expect(started.status, started.text).toBe(200);
      expect(started.json).toEqual({ ok: true, expiresInMinutes: 10 });
      const reauthMail = await smtp.message(person.email, before + 1);
      expect(reauthMail.text).toContain('confirm it is you');
      const wrong = await reauthVerify(person, wrongFor(reauthMail.code as string));
      expect(wrong.json.message).toBe('That code is not right. 4 tries left.');
      const confirmed = await reauthVerify(person, reauthMail.code as string);
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(Date.parse(confirmed.json.freshUntil)).toBeGreaterThan(Date.now() + 9 * 60_000);
      expect((await reauthVerify(person, reauthMail.code as string)).json.error).toBe(EMAIL_CODE_ERRORS.used);

      // Now the new address: its code, then the account's ways in show it instead of the old one.
      const linked = await linkStart(person, next);
      expect(linked.status, linked.text).toBe(200);
      const linkMail = await smtp.message(next);
      expect(linkMail.text).toContain('add this address to your PodMatch account');
      // The code is for the address it went to, not another one typed on the way back.
      const elsewhere = await linkVerify(person, newAddress(), linkMail.code as string);
      expect(elsewhere.json.error).toBe(EMAIL_CODE_ERRORS.noCode);
      const done = await linkVerify(person, next, linkMail.code as string);
      expect(done.status, done.text).toBe(200);
      const ways = SignInWaysSchema.parse(done.json);
      expect(ways.ways.filter((w) => w.kind === 'email').map((w) => w.label)).toEqual([next]);
      expect(ways.freshUntil).not.toBeNull();

      // The old address is told; it no longer opens the account.
      const notice = await smtp.message(person.email, before + 2);
      expect(notice.subject).toBe('Your PodMatch sign-in address was changed');
      expect(notice.text).toContain(next);
      const viaNew = await verify(next, await codeFor(next));
      expect(viaNew.json.user.id).toBe(person.user.id);
      const viaOld = await verify(person.email, await codeFor(person.email));
      expect(viaOld.status).toBe(200);
      expect(viaOld.json.user.id).not.toBe(person.user.id);
    });

    it('refuses, after its code, an address that is another account way in (409), and the address already the account own', async () => {
      const owner = await signUp();
      const other = await server.login();
      const before = smtp.to(owner.email).length;
      const started = await linkStart(other, owner.email);
      // Nothing is said before the code: anyone could otherwise learn which addresses have accounts.
      expect(started.status).toBe(200);
      const code = await smtp.code(owner.email, before + 1);
      const taken = await linkVerify(other, owner.email, code);
      expect(taken.status).toBe(409);
      expect(taken.json).toEqual({ error: 'conflict', message: EMAIL_AUTH_TEXTS.addressTaken });
      const rows = await sql<{ user_id: number }>(
        em(),
        `select user_id from user_identities where provider = 'email' and subject = ?`,
        [owner.email],
      );
      expect(rows.map((r) => r.user_id)).toEqual([owner.user.id]);

      const own = await linkStart(owner, owner.email);
      expect(own.status).toBe(409);
      expect(own.json.message).toBe(EMAIL_AUTH_TEXTS.alreadyYours);
    });

    it('a login just begun counts as fresh: a development account adds its first address without another proof', async () => {
      const person = await server.login();
      const email = newAddress();
      expect((await linkStart(person, email)).status).toBe(200);
      const done = await linkVerify(person, email, await smtp.code(email));
      expect(done.status, done.text).toBe(200);
      expect(done.json.ways.map((w: { kind: string }) => w.kind).sort()).toEqual(['devLogin', 'email']);
    });

    it('refuses a re-authentication by email for an account without an address (409), and a code nobody sent', async () => {
      const person = await server.login();
      const res = await reauthStart(person);
      expect(res.status).toBe(409);
      expect(res.json).toEqual({ error: 'conflict', message: EMAIL_AUTH_TEXTS.noAddress });
      const verifyRes = await reauthVerify(person, '123456');
      expect(verifyRes.status).toBe(400);
      expect(verifyRes.json.error).toBe(EMAIL_CODE_ERRORS.noCode);
    });

    it("refuses to send or check a link code for another person's account", async () => {
      const [me, them] = await Promise.all([server.login(), server.login()]);
      const email = newAddress();
      const res = await linkStart(me, email, them.user.id);
      expect(res.status).toBe(403);
      const check = await server.call('POST', `/api/users/${them.user.id}/email/verify`, {
        token: me.token,
        body: { email, code: '123456' },
      });
      expect(check.status).toBe(403);
      expect(smtp.to(email)).toHaveLength(0);
    });
  });
});
