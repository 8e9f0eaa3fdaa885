// Every way in at the same moment, on two server instances sharing PostgreSQL and Redis (pool of 10
// each): 50 people finishing an email sign-up, 50 finishing a passkey sign-up, 20 attempts by two
// accounts to link one email address, and 20 Bluesky sign-ins of one new DID, all fired together.
// Exactly one owner per identity, every person an account of their own, no 5xx.
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../../core/db/sql';
import { AtprotoStandIn, standInDid } from '../../test/bluesky-stand-in';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';
import { PasskeyBrowser } from '../../test/passkey-browser';
import { SmtpStandIn } from '../../test/smtp-stand-in';

const cookieOf = (headers: Headers) => (headers.get('set-cookie') ?? '').split(';')[0] ?? '';

describe('sign-ups and links of every kind at once, on two instances', () => {
  let smtp: SmtpStandIn;
  let standIn: AtprotoStandIn;
  let a: TestServer;
  let b: TestServer;
  const em = () => a.running.deps.orm.em.fork() as EntityManager;
  const either = (i: number) => (i % 2 ? b : a);

  beforeAll(async () => {
    [smtp, standIn] = await Promise.all([SmtpStandIn.start(), new AtprotoStandIn().start()]);
    const env = {
      SMTP_URL: smtp.url,
      ATPROTO_PLC_URL: standIn.url,
      ATPROTO_HANDLE_RESOLVER: standIn.url,
      ATPROTO_CALLBACK_URL: 'http://127.0.0.1/api/bluesky/callback',
      // Instances of one deployment share the key of secrets at rest.
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    [a, b] = await Promise.all([startTestServer(env), startTestServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([smtp?.close(), standIn?.close()]);
  });

  /** A Bluesky sign-in approved at the stand-in, up to its code (the exchange is the racing step). */
  async function blueskyCode(handle: string, server: TestServer): Promise<string> {
    const begun = await server.call('POST', '/api/auth/bluesky/start', { body: { handle } });
    expect(begun.status, begun.text).toBe(200);
    const consent = await fetch(new URL(begun.json.url as string), { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const back = await fetch(`${server.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: { cookie: cookieOf(begun.headers) },
    });
    return new URL(back.headers.get('location') ?? '', server.url).searchParams.get('bluesky_code') ?? '';
  }

  it('50 email and 50 passkey sign-ups, 20 links of one address and 20 Bluesky sign-ins of one DID: one owner each, no 5xx', async () => {
    // Everything up to the last step, prepared across both instances.
    const addresses = Array.from({ length: 50 }, () => `${uniqueName('once')}@example.com`);
    const asked = await Promise.all(
      addresses.map((email, i) => either(i).call('POST', '/api/auth/email/code', { body: { email } })),
    );
    expect(asked.map((r) => r.status)).toEqual(addresses.map(() => 200));
    const emailCodes = await Promise.all(addresses.map((email) => smtp.code(email)));

    const passkeyPeople = Array.from({ length: 50 }, (_, i) => new PasskeyBrowser(either(i).url));
    const passkeyOptions = await Promise.all(passkeyPeople.map((person) => person.signUpOptions()));

    const contested = `${uniqueName('contested')}@example.com`;
    const [first, second] = await Promise.all([a.login(), b.login()]);
    for (const who of [first, second]) {
      const res = await a.call('POST', `/api/users/${who.user.id}/email/code`, {
        token: who.token,
        body: { email: contested },
      });
      expect(res.status).toBe(200);
    }
    const linkCodes = [await smtp.code(contested, 1), await smtp.code(contested, 2)];

    const handle = `${uniqueName('once')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '')}.test`;
    const blueskyCodes: string[] = [];
    for (let i = 0; i < 20; i++) blueskyCodes.push(await blueskyCode(handle, either(i)));

    // The last step of every one of them, at the same moment: 140 requests against two pools of 10.
    const started = performance.now();
    const [emailAnswers, passkeyAnswers, linkAnswers, blueskyAnswers] = await Promise.all([
      Promise.all(
        addresses.map((email, i) =>
          either(i + 1).call('POST', '/api/auth/email/verify', { body: { email, code: emailCodes[i] } }),
        ),
      ),
      Promise.all(
        passkeyPeople.map((person, i) =>
          person.call('POST', '/api/auth/passkey/register/verify', {
            body: { response: person.authenticator.register(passkeyOptions[i] as never, person.origin) },
          }),
        ),
      ),
      Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const who = i % 2 ? second : first;
          return either(i).call('POST', `/api/users/${who.user.id}/email/verify`, {
            token: who.token,
            body: { email: contested, code: linkCodes[i % 2] },
          });
        }),
      ),
      Promise.all(
        blueskyCodes.map((code, i) => either(i + 1).call('POST', '/api/auth/bluesky/exchange', { body: { code } })),
      ),
    ]);
    const ms = Math.round(performance.now() - started);
    const all = [...emailAnswers, ...passkeyAnswers, ...linkAnswers, ...blueskyAnswers];
    const statuses = all.reduce<Record<number, number>>((counts, r) => {
      counts[r.status] = (counts[r.status] ?? 0) + 1;
      return counts;
    }, {});
    console.info(`[sign-ups at once] 140 last steps on two instances in ${ms} ms: ${JSON.stringify(statuses)}`);
    expect(all.filter((r) => r.status >= 500).map((r) => r.text)).toEqual([]);

    // Every email and passkey person has an account of their own.
    expect(emailAnswers.map((r) => r.status)).toEqual(addresses.map(() => 200));
    expect(passkeyAnswers.map((r) => r.status)).toEqual(passkeyPeople.map(() => 200));
    const accounts = [...emailAnswers, ...passkeyAnswers].map((r) => r.json.user.id as number);
    expect(new Set(accounts).size).toBe(100);

    // The contested address: one link won, the other account was refused every time.
    expect(linkAnswers.filter((r) => r.status === 200)).toHaveLength(1);
    const winner = linkAnswers.findIndex((r) => r.status === 200) % 2 ? second : first;
    const loser = winner === first ? second : first;
    linkAnswers.forEach((r, i) => {
      if ((i % 2 ? second : first) === loser) expect(r.status).toBe(409);
    });

    // One Bluesky account for the DID, whichever exchange made it.
    expect(blueskyAnswers.map((r) => r.status)).toEqual(blueskyCodes.map(() => 200));
    expect(new Set(blueskyAnswers.map((r) => r.json.user.id)).size).toBe(1);

    // In the database: one owner per identity, and the owners are the ones answered.
    const owners = await sql<{ provider: string; subject: string; owners: number; user_id: number }>(
      em(),
      `select provider, subject, count(*)::int as owners, min(user_id) as user_id from user_identities
        where (provider = 'email' and subject = any(?::text[])) or (provider = 'bluesky' and subject = ?)
           or (provider = 'passkey' and user_id = any(?::int[]))
        group by provider, subject`,
      [`{${[...addresses, contested].join(',')}}`, standInDid(handle), `{${accounts.join(',')}}`],
    );
    expect(owners.filter((row) => row.owners !== 1)).toEqual([]);
    const ownerOf = new Map(owners.map((row) => [`${row.provider}:${row.subject}`, row.user_id]));
    expect(addresses.map((email) => ownerOf.get(`email:${email}`))).toEqual(emailAnswers.map((r) => r.json.user.id));
    expect(ownerOf.get(`email:${contested}`)).toBe(winner.user.id);
    expect(ownerOf.get(`bluesky:${standInDid(handle)}`)).toBe(blueskyAnswers[0]?.json.user.id);
    expect(owners.filter((row) => row.provider === 'passkey')).toHaveLength(50);
  });
});
