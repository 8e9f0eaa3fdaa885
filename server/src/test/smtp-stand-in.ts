// A real SMTP server for tests (smtp-server), with every message it takes parsed (mailparser):
// the server under test sends through SMTP_URL=stand-in.url exactly as it would in production.
import type { AddressInfo } from 'node:net';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from './harness';

export interface ReceivedMail {
  /** The envelope's recipients (what the server was asked to deliver to). */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string | null;
  /** The To: header, as the message says it. */
  toHeader: string;
  /** The six-digit code in the text, if any. */
  code: string | null;
}

const addressesOf = (value: AddressObject | AddressObject[] | undefined) =>
  [value ?? []]
    .flat()
    .map((a) => a.text)
    .join(', ');

export class SmtpStandIn {
  readonly received: ReceivedMail[] = [];
  /** Set to refuse every message (a mail server that is down or rejecting). */
  refusing = false;
  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  /** Listens on a free local port; with `auth`, only those credentials may send (AUTH PLAIN/LOGIN). */
  static async start(auth?: { user: string; pass: string }, port = 0): Promise<SmtpStandIn> {
    let standIn: SmtpStandIn | undefined;
    const server = new SMTPServer({
      // A plain local connection: no STARTTLS to offer (nodemailer would try it with a self-signed certificate).
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      authOptional: !auth,
      allowInsecureAuth: true,
      logger: false,
      // No reverse DNS of 127.0.0.1 for each connection.
      disableReverseLookup: true,
      onAuth(credentials, _session, callback) {
        if (auth && credentials.username === auth.user && credentials.password === auth.pass) {
          callback(null, { user: credentials.username });
        } else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        if (standIn?.refusing) {
          stream.resume();
          stream.on('end', () => callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 })));
          return;
        }
        simpleParser(stream)
          .then((parsed) => {
            const text = parsed.text ?? '';
            standIn?.received.push({
              to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: addressesOf(parsed.from),
              subject: parsed.subject ?? '',
              text,
              html: typeof parsed.html === 'string' ? parsed.html : null,
              toHeader: addressesOf(parsed.to),
              code: text.match(/\b(\d{6})\b/)?.[1] ?? null,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const { port: listening } = server.server.address() as AddressInfo;
    const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';
    standIn = new SmtpStandIn(server, `smtp://${credentials}127.0.0.1:${listening}`);
    return standIn;
  }

  /** Messages delivered to `address`, oldest first. */
  to(address: string): ReceivedMail[] {
    return this.received.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  /** Waits for the `nth` message (1-based) to `address`, and answers it. */
  async message(address: string, nth = 1): Promise<ReceivedMail> {
    return until(async () => this.to(address)[nth - 1], `message ${nth} to ${address}`);
  }

  /** The code of the newest message to `address` once there are `count` of them. */
  async code(address: string, count = 1): Promise<string> {
    const mail = await this.message(address, count);
    if (!mail.code) throw new Error(`no code in the message to ${address}: ${mail.text}`);
    return mail.code;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
