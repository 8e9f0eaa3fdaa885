// The development mailbox (docs/auth.md, "The development mailbox"): every message the app would
// have sent, as `<id>.eml` (the raw RFC 822 message, which any mail program opens) beside
// `<id>.json` (what /dev/mail lists). Several server instances may share the directory.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { DEV_MAIL_ID_PATTERN, type DevMailMessage } from '@shared/index';

/** The first six-digit number of a message: the code, shown in the mailbox's list. */
const CODE = /\b(\d{6})\b/;

export class DevMailbox {
  constructor(readonly dir: string) {}

  /** Keeps one message; the listing shows it once its `.json` is there (written last, in one rename). */
  async store(
    raw: Buffer,
    mail: { from: string; to: string; subject: string; text: string; html?: string },
  ): Promise<DevMailMessage> {
    await fs.mkdir(this.dir, { recursive: true });
    const sentAt = new Date();
    // Names sort by time: the listing reads them newest first without opening each.
    const id = `${sentAt.toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
    const message: DevMailMessage = {
      id,
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      sentAt: sentAt.toISOString(),
      text: mail.text,
      html: mail.html ?? null,
      code: mail.text.match(CODE)?.[1] ?? null,
    };
    await fs.writeFile(path.join(this.dir, `${id}.eml`), raw);
    const meta = path.join(this.dir, `${id}.json`);
    await fs.writeFile(`${meta}.tmp`, JSON.stringify(message));
    await fs.rename(`${meta}.tmp`, meta);
    return message;
  }

  /** The newest messages first, at most `limit`, only those to `to` when given. */
  async list(options: { to?: string; limit?: number } = {}): Promise<DevMailMessage[]> {
    const limit = options.limit ?? 100;
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const ids = names
      .filter((name) => name.endsWith('.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .sort()
      .reverse();
    const found: DevMailMessage[] = [];
    for (const id of ids) {
      if (found.length >= limit) break;
      const message = await this.get(id);
      if (message && (!options.to || message.to.toLowerCase() === options.to.toLowerCase())) found.push(message);
    }
    return found;
  }

  /** One message, or null (an id that is not one of ours names no file at all). */
  async get(id: string): Promise<DevMailMessage | null> {
    if (!DEV_MAIL_ID_PATTERN.test(id)) return null;
    try {
      return JSON.parse(await fs.readFile(path.join(this.dir, `${id}.json`), 'utf8')) as DevMailMessage;
    } catch {
      return null;
    }
  }

  /** The message as it would have gone out (RFC 822), or null. */
  async raw(id: string): Promise<Buffer | null> {
    if (!DEV_MAIL_ID_PATTERN.test(id)) return null;
    return fs.readFile(path.join(this.dir, `${id}.eml`)).catch(() => null);
  }
}
