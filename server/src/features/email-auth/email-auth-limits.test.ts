// Rate limits of emailed codes (docs/auth.md, "Limits"), with the real allowances
// (RATE_LIMIT_SCALE=1) across two server instances sharing Redis (an in-process server and a real
// server process, both sending through the SMTP server started here): per address a code goes to,
// whoever asks and from wherever, and per client address. Both servers sit behind "one proxy hop"
// (TRUST_PROXY=1): the test plays the proxy by sending the client's address.
import type { ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { RATE_LIMIT_TEXTS } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emailAllowanceKey, RATE_LIMIT_POLICIES } from '../../http/rate-limits';
import { exited, startServerProcess } from '../../test/app-process';
import { startTestServer, TestClient, type TestServer, uniqueName } from '../../test/harness';
import { SmtpStandIn } from '../../test/smtp-stand-in';
import { freePort } from '../../test/spotify-flow';

/** A fresh documentation-range address per call, so no other test's traffic shares its counters. */
const clientAddress = () => `203.0.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const newAddress = () => `${uniqueName('burst')}@example.com`;
const { perUser: perAddress, perIp: perClient } = RATE_LIMIT_POLICIES.emailCodes;

describe('email code limits across two server instances', () => {
  let smtp: SmtpStandIn;
  let one: TestServer;
  let two: TestClient;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    smtp = await SmtpStandIn.start();
    const env = { RATE_LIMIT_SCALE: '1', TRUST_PROXY: '1', SMTP_URL: smtp.url };
    one = await startTestServer(env);
    const port = await freePort();
    child = await startServerProcess(port, env);
    two = new TestClient(`http://127.0.0.1:${port}`);
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    await one?.close();
    await smtp?.close();
  });

  const ask = (server: TestClient, email: string, ip: string) =>
    server.call('POST', '/api/auth/email/code', { body: { email }, headers: { 'x-forwarded-for': ip } });

  it('a burst of code requests for one address, from many places, on both instances: the allowance of the address, then 429s; a link to it is refused too', async () => {
    const email = newAddress();
    const burst = perAddress.points + 7;
    const results = await Promise.all(
      Array.from({ length: burst }, (_, i) => ask(i % 2 ? two : one, email, clientAddress())),
    );
    const refused = results.filter((r) => r.status === 429);
    console.log(
      `[email limits] ${burst} requests for one address: ${burst - refused.length} sent, ${refused.length} x 429 (allowance ${perAddress.points} per ${perAddress.seconds / 60} min)`,
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(perAddress.points);
    expect(refused).toHaveLength(burst - perAddress.points);
    expect(refused[0]?.json).toEqual({ error: 'rate_limited', message: RATE_LIMIT_TEXTS.emailCodes });
    const retryAfter = Number(refused[0]?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(perAddress.seconds);
    // Exactly the allowance reached the mailbox.
    expect(smtp.to(email)).toHaveLength(perAddress.points);

    // A signed-in person cannot send it more codes by linking it to their account.
    const ip = clientAddress();
    const login = await two.call('POST', '/api/auth/dev-login', {
      body: { username: uniqueName() },
      headers: { 'x-forwarded-for': ip },
    });
    const link = await one.call('POST', `/api/users/${login.json.user.id}/email/code`, {
      token: login.json.token,
      body: { email },
      headers: { 'x-forwarded-for': ip },
    });
    expect(link.status).toBe(429);
    expect(smtp.to(email)).toHaveLength(perAddress.points);
  });

  it('a day of codes for one address: past the daily allowance, refused on either instance with the daily sentence', async () => {
    const email = newAddress();
    const daily = RATE_LIMIT_POLICIES.emailCodesDaily.perUser.points;
    // The day's earlier codes, taken straight from the shared counters (the short window would
    // otherwise make this test last hours).
    for (let i = 0; i < daily; i++) {
      await one.running.deps.limits.take('emailCodesDaily', { user: emailAllowanceKey(email) });
    }
    const res = await ask(two, email, clientAddress());
    expect(res.status).toBe(429);
    expect(res.json.message).toBe(RATE_LIMIT_TEXTS.emailCodesDaily);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(perAddress.seconds);
    expect(smtp.to(email)).toHaveLength(0);
  });

  it("re-authentication codes count against the account's address: a stolen login cannot add to a flood of codes", async () => {
    const email = newAddress();
    const first = await ask(one, email, clientAddress());
    expect(first.status).toBe(200);
    const signedIn = await two.call('POST', '/api/auth/email/verify', {
      body: { email, code: await smtp.code(email) },
      headers: { 'x-forwarded-for': clientAddress() },
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    for (let i = 1; i < perAddress.points; i++) expect((await ask(two, email, clientAddress())).status).toBe(200);
    const reauth = await one.call('POST', '/api/auth/reauth/email/code', {
      token: signedIn.json.token,
      headers: { 'x-forwarded-for': clientAddress() },
    });
    expect(reauth.status).toBe(429);
    expect(reauth.json.message).toBe(RATE_LIMIT_TEXTS.emailCodes);
    expect(smtp.to(email)).toHaveLength(perAddress.points);
  });

  it('a burst from one client address for many addresses, on both instances: the allowance of the client address, then 429s; others are not held up', async () => {
    const ip = clientAddress();
    const burst = perClient.points + 6;
    const addresses = Array.from({ length: burst }, newAddress);
    const results = await Promise.all(addresses.map((email, i) => ask(i % 2 ? two : one, email, ip)));
    const sent = results.filter((r) => r.status === 200).length;
    console.log(
      `[email limits] ${burst} requests from one client address: ${sent} sent, ${burst - sent} x 429 (allowance ${perClient.points} per ${perClient.seconds / 60} min)`,
    );
    expect(sent).toBe(perClient.points);
    expect(results.filter((r) => r.status === 429)).toHaveLength(burst - perClient.points);
    expect(results.find((r) => r.status === 429)?.json.message).toBe(RATE_LIMIT_TEXTS.emailCodes);
    expect(smtp.received.filter((mail) => mail.to.some((to) => addresses.includes(to)))).toHaveLength(perClient.points);
    // Someone at another address asks as usual.
    expect((await ask(two, newAddress(), clientAddress())).status).toBe(200);
  });
});
