import { z } from 'zod';
import { EmailSchema } from './sign-in';

// The development mailbox (docs/auth.md): what the app would have mailed, when no SMTP server is
// configured, outside production only.

/** A message id: its time and a random tail (`2026-11-27T03-04-05-123Z-9f2c1a0b`), never a path. */
export const DEV_MAIL_ID_PATTERN = /^[0-9A-Za-z-]{1,80}$/;

export const DevMailMessageSchema = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  subject: z.string(),
  sentAt: z.string(),
  text: z.string(),
  html: z.string().nullable(),
  /** The six-digit code in the message, if any. */
  code: z.string().nullable(),
});
export type DevMailMessage = z.infer<typeof DevMailMessageSchema>;

export const DevMailIdParams = z.strictObject({
  id: z.string().regex(DEV_MAIL_ID_PATTERN, 'That is not a message id.'),
});
/** `?format=eml`: the raw message, for a mail program. */
export const DevMailMessageQuerySchema = z.object({ format: z.enum(['html', 'eml']).default('html') });
export const DevMailLatestQuerySchema = z.object({ to: EmailSchema });
