// Outgoing email (docs/auth.md, "Email codes"): through an SMTP server when SMTP_URL is set;
// otherwise, outside production only, into a local mailbox the developer opens at /dev/mail, so
// `npm start` needs no mail server. In production without SMTP_URL there is no mailer at all.
import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import { DevMailbox } from './dev-mailbox';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the message (or it was written to the dev mailbox). */
  send(mail: OutgoingMail): Promise<void>;
  /** The local mailbox when this mailer writes there (development), else null. */
  readonly devMailbox: DevMailbox | null;
  close(): void;
}

/**
 * Sends through an SMTP server, over a few kept-open connections (a new one costs a handshake, and
 * TLS for smtps). Each request that mails waits for the answer, so the waits are seconds, not
 * nodemailer's minutes; a URL's own query (e.g. `?pool=false&socketTimeout=60000`) overrides these.
 */
class SmtpMailer implements Mailer {
  readonly devMailbox = null;
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = nodemailer.createTransport({
      pool: true,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
      ...parseConnectionUrl(smtpUrl),
    });
  }

  async send(mail: OutgoingMail): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...mail });
  }

  close(): void {
    this.transport.close();
  }
}

/** Builds the message as an SMTP server would receive it (RFC 822) and keeps it in the dev mailbox. */
class DevMailer implements Mailer {
  private readonly transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

  constructor(
    readonly devMailbox: DevMailbox,
    private readonly from: string,
  ) {}

  async send(mail: OutgoingMail): Promise<void> {
    const info = await this.transport.sendMail({ from: this.from, ...mail });
    await this.devMailbox.store(info.message as Buffer, { ...mail, from: this.from });
  }

  close(): void {
    this.transport.close();
  }
}

/** The mail settings of config.ts (SMTP_URL, MAIL_FROM, and MAIL_DIR outside production). */
export interface MailSettings {
  smtpUrl?: string;
  from: string;
  devMailDir?: string;
}

/** The mailer the configuration asks for, or null when email is off (production without SMTP_URL). */
export function createMailer(mail: MailSettings): Mailer | null {
  if (mail.smtpUrl) return new SmtpMailer(mail.smtpUrl, mail.from);
  if (mail.devMailDir) return new DevMailer(new DevMailbox(mail.devMailDir), mail.from);
  return null;
}
