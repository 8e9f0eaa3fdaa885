// The development mailbox (docs/auth.md, "The development mailbox"): without SMTP_URL, outside
// production, each message is an .eml file under MAIL_DIR, listed newest first at /dev/mail (code
// visible), shown one by one, and readable as JSON by browser tests. In production, or with SMTP
// configured, none of it exists.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DevMailMessageSchema, EMAIL_AUTH_TEXTS } from '@shared/index';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, uniqueName } from '../../test/harness';
import { SmtpStandIn } from '../../test/smtp-stand-in';

const newAddress = () => `${uniqueName('dev')}@example.com`;

describe('the development mailbox', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-mail-'));
    server = await startTestServer({ NODE_ENV: 'development', MAIL_DIR: dir });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const ask = (email: string) => server.call('POST', '/api/auth/email/code', { body: { email } });

  it('writes each message as an .eml file, lists them newest first with their codes, shows one, and serves the newest as JSON', async () => {
    const methods = await server.call('GET', '/api/auth/methods');
    expect(methods.json.email).toBe(true);

    const [first, second] = [newAddress(), newAddress()];
    expect((await ask(first)).status).toBe(200);
    expect((await ask(second)).status).toBe(200);

    // On disk: the raw messages, as a mail program would open them.
    const files = (await fs.readdir(dir)).filter((name) => name.endsWith('.eml')).sort();
    expect(files).toHaveLength(2);
    const parsed = await Promise.all(files.map(async (name) => simpleParser(await fs.readFile(path.join(dir, name)))));
    expect(parsed.map((mail) => (Array.isArray(mail.to) ? '' : mail.to?.text))).toEqual([first, second]);
    const codes = parsed.map((mail) => mail.text?.match(/\b\d{6}\b/)?.[0]);
    expect(parsed[0]?.subject).toBe(`${codes[0]} is your PodMatch code`);

    // The JSON for browser tests: the newest message to an address, its code ready.
    const latest = await server.call('GET', `/api/dev/mail/latest?to=${encodeURIComponent(second.toUpperCase())}`);
    expect(latest.status).toBe(200);
    const message = DevMailMessageSchema.parse(latest.json);
    expect(message).toMatchObject({ to: second, code: codes[1], subject: `${codes[1]} is your PodMatch code` });
    const none = await server.call('GET', `/api/dev/mail/latest?to=${encodeURIComponent(newAddress())}`);
    expect(none.status).toBe(404);
    expect(none.json.message).toBe('No message to that address yet.');

    // The page: newest first, each with its code and a link to it.
    const page = await server.call('GET', '/dev/mail');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text.indexOf(second)).toBeGreaterThan(0);
    expect(page.text.indexOf(second)).toBeLessThan(page.text.indexOf(first));
    for (const code of codes) expect(page.text).toContain(`<td class="code">${code}</td>`);
    expect(page.text).toContain(`href="/dev/mail/${message.id}"`);

    // One message as a page, and as the raw .eml.
    const one = await server.call('GET', `/dev/mail/${message.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(codes[1]);
    expect(one.text).toContain('expires in 10 minutes');
    const raw = await server.call('GET', `/dev/mail/${message.id}?format=eml`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toMatch(/^message\/rfc822/);
    expect((await simpleParser(raw.text)).subject).toBe(message.subject);

    // The code works: the mailbox is the real way in for a developer.
    const signedIn = await server.call('POST', '/api/auth/email/verify', {
      body: { email: second, code: message.code },
    });
    expect(signedIn.status, signedIn.text).toBe(200);
  });

  it('answers 404 for a message that is not there, and 400 for an id that is not one (no path of any file)', async () => {
    expect((await server.call('GET', '/dev/mail/2020-01-01T00-00-00-000Z-00000000')).status).toBe(404);
    const traversal = await server.call('GET', `/dev/mail/${encodeURIComponent('../../package')}`);
    expect(traversal.status).toBe(400);
    expect(traversal.json.message).toBe('That is not a message id.');
    expect((await server.call('GET', '/dev/elsewhere')).status).toBe(404);
  });
});

describe('no development mailbox in production, or with SMTP configured', () => {
  it('production without SMTP_URL: no mailbox, no email sign-in, /dev/mail is a 404 (not the app page), nothing written', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-mail-'));
    const server = await startTestServer({ NODE_ENV: 'production', MAIL_DIR: dir });
    try {
      expect(server.running.deps.mail).toBeNull();
      expect((await server.call('GET', '/api/auth/methods')).json.email).toBe(false);
      const page = await server.call('GET', '/dev/mail');
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/json/);
      expect((await server.call('GET', `/api/dev/mail/latest?to=${encodeURIComponent(newAddress())}`)).status).toBe(
        404,
      );
      const asked = await server.call('POST', '/api/auth/email/code', { body: { email: newAddress() } });
      expect(asked.status).toBe(404);
      expect(asked.json).toEqual({ error: 'email_unavailable', message: EMAIL_AUTH_TEXTS.unavailable });
      expect(await fs.readdir(dir)).toEqual([]);
    } finally {
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('development with SMTP_URL: the mail goes to the SMTP server and /dev/mail does not exist', async () => {
    const smtp = await SmtpStandIn.start();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-mail-'));
    const server = await startTestServer({ NODE_ENV: 'development', SMTP_URL: smtp.url, MAIL_DIR: dir });
    try {
      const email = newAddress();
      expect((await server.call('POST', '/api/auth/email/code', { body: { email } })).status).toBe(200);
      await smtp.message(email);
      expect((await server.call('GET', '/dev/mail')).status).toBe(404);
      expect((await server.call('GET', `/api/dev/mail/latest?to=${encodeURIComponent(email)}`)).status).toBe(404);
      expect(await fs.readdir(dir)).toEqual([]);
    } finally {
      await server.close();
      await smtp.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
