// Email codes under concurrency (docs/auth.md, "Email codes"): many sign-ups at once (several times
// the database pool of 10), each code sent twice at once, and one address linked by several
// accounts at the same moment. Exactly one account or owner per address, and never a 5xx.
import type { EntityManager } from '@mikro-orm/postgresql';
import { EMAIL_AUTH_TEXTS, EMAIL_CODE_ERRORS, type LoginResponse } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';
import { SmtpStandIn } from '../../test/smtp-stand-in';

const newAddress = () => `${uniqueName('load')}@example.com`;

describe('email codes under load', () => {
  let smtp: SmtpStandIn;
  let server: TestServer;
  let em: () => EntityManager;

  beforeAll(async () => {
    smtp = await SmtpStandIn.start();
    server = await startTestServer({ SMTP_URL: smtp.url });
    em = () => server.running.deps.orm.em.fork() as EntityManager;
  });
  afterAll(async () => {
    await server?.close();
    await smtp?.close();
  });

  const linkStart = (who: LoginResponse, email: string) =>
    server.call('POST', `/api/users/${who.user.id}/email/code`, { token: who.token, body: { email } });
  const linkVerify = (who: LoginResponse, email: string, code: string) =>
    server.call('POST', `/api/users/${who.user.id}/email/verify`, { token: who.token, body: { email, code } });
  const owners = (email: string) =>
    sql<{ user_id: number }>(em(), `select user_id from user_identities where provider = 'email' and subject = ?`, [
      email,
    ]);

  it('50 people sign up at once, each sending their code twice at once: one account per address, no 5xx', async () => {
    const addresses = Array.from({ length: 50 }, newAddress);
    const t0 = performance.now();
    const asked = await Promise.all(
      addresses.map((email) => server.call('POST', '/api/auth/email/code', { body: { email } })),
    );
    const askedMs = performance.now() - t0;
    expect(asked.map((r) => r.status)).toEqual(addresses.map(() => 200));
    const codes = await Promise.all(addresses.map((email) => smtp.code(email)));

    const t1 = performance.now();
    const verified = await Promise.all(
      addresses.flatMap((email, i) =>
        [0, 1].map(() => server.call('POST', '/api/auth/email/verify', { body: { email, code: codes[i] } })),
      ),
    );
    const verifiedMs = performance.now() - t1;
    console.log(
      `[email load] 50 code requests at once in ${askedMs.toFixed(0)} ms; 100 verifications at once in ${verifiedMs.toFixed(0)} ms; statuses ${JSON.stringify(
        Object.fromEntries(
          [...new Set(verified.map((r) => r.status))].map((s) => [s, verified.filter((r) => r.status === s).length]),
        ),
      )}`,
    );
    expect(verified.filter((r) => r.status >= 500)).toEqual([]);
    const ids = new Set<number>();
    addresses.forEach((_, i) => {
      const pair = [verified[2 * i], verified[2 * i + 1]];
      const won = pair.filter((r) => r?.status === 200);
      expect(won).toHaveLength(1);
      ids.add(won[0]?.json.user.id);
      expect(pair.find((r) => r?.status !== 200)?.json.error).toBe(EMAIL_CODE_ERRORS.used);
    });
    expect(ids.size).toBe(50);
    const rows = await sql<{ subject: string; user_id: number }>(
      em(),
      `select subject, user_id from user_identities where provider = 'email' and subject in (?)`,
      [addresses],
    );
    expect(rows).toHaveLength(50);
    expect(new Set(rows.map((r) => r.user_id))).toEqual(ids);
  });

  it('20 simultaneous attempts to link one address to two accounts: one owner, the other account refused every time (409), no 5xx', async () => {
    const address = newAddress();
    const [a, b] = await Promise.all([server.login(), server.login()]);
    // One after the other, so the first message is a's code and the second b's.
    expect((await linkStart(a, address)).status).toBe(200);
    expect((await linkStart(b, address)).status).toBe(200);
    const [codeA, codeB] = [await smtp.code(address, 1), await smtp.code(address, 2)];

    const attempts = Array.from({ length: 20 }, (_, i) => (i % 2 ? ([a, codeA] as const) : ([b, codeB] as const)));
    const results = await Promise.all(attempts.map(([who, code]) => linkVerify(who, address, code)));
    const statuses = results.map((r) => r.status);
    console.log(
      `[email load] 20 link attempts of one address by two accounts: ${statuses.filter((s) => s === 200).length} linked, ${statuses.filter((s) => s === 409).length} x 409, ${statuses.filter((s) => s === 400).length} x 400 (the winner's code, already used)`,
    );
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    const winner = attempts[statuses.indexOf(200)]?.[0] as LoginResponse;
    const loser = winner === a ? b : a;
    results.forEach((res, i) => {
      if (attempts[i]?.[0] === loser) {
        expect(res.status).toBe(409);
        expect(res.json.message).toBe(EMAIL_AUTH_TEXTS.addressTaken);
      } else if (res.status !== 200) {
        expect(res.json.error).toBe(EMAIL_CODE_ERRORS.used);
      }
    });
    expect((await owners(address)).map((r) => r.user_id)).toEqual([winner.user.id]);
  });

  it('20 accounts link one address at the same moment: exactly one owner, 19 refused (409), no 5xx', async () => {
    const address = newAddress();
    const people = await Promise.all(Array.from({ length: 20 }, () => server.login()));
    for (const person of people) expect((await linkStart(person, address)).status).toBe(200);
    const codes = await Promise.all(people.map((_, i) => smtp.code(address, i + 1)));
    const results = await Promise.all(people.map((person, i) => linkVerify(person, address, codes[i] as string)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = people[statuses.indexOf(200)];
    expect((await owners(address)).map((r) => r.user_id)).toEqual([winner?.user.id]);
  });
});
