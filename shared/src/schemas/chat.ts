import { z } from 'zod';
import { LIMITS } from '../constants';
import { IdSchema, TimestampSchema } from './common';

/**
 * A chat message (SPEC section 3, messages). `seq` numbers the messages of one match 1, 2, 3...
 * in the order the database stored them; `clientId` is the sender's own id for the send, so a
 * retried send returns the stored message instead of adding one. `flagged`: the server's word check
 * (isMessageFlagged) found the text likely to hurt; the recipient is asked "Does this bother you?"
 * (docs/chat.md, "The safety nudge"). Never a reason not to deliver it.
 */
export const MessageSchema = z.object({
  id: z.number().int(),
  matchId: z.number().int(),
  senderId: z.number().int(),
  content: z.string(),
  seq: z.number().int().positive(),
  clientId: z.string().nullable(),
  flagged: z.boolean(),
  createdAt: TimestampSchema,
});
export type Message = z.infer<typeof MessageSchema>;

export const MessageListSchema = z.array(MessageSchema);

/** Text as typed: blank or whitespace-only is refused; kept as text, never interpreted as HTML. */
export const MessageContentSchema = z
  .string()
  .max(LIMITS.messageMaxLength, `Messages can be at most ${LIMITS.messageMaxLength.toLocaleString('en')} characters.`)
  .refine((text) => text.trim().length > 0, 'Type a message first.');

export const ClientMessageIdSchema = z.string().uuid('clientId must be a UUID');

/** SPEC section 7, POST /api/messages; `clientId` (optional for older clients) makes retries safe. */
export const SendMessageBodySchema = z.strictObject({
  matchId: z.number().int().positive(),
  senderId: z.number().int().positive(),
  content: MessageContentSchema,
  clientId: ClientMessageIdSchema.optional(),
});
export type SendMessageBody = z.infer<typeof SendMessageBodySchema>;

/**
 * GET .../messages: without `before`/`after`, the newest page; `before` = older than that seq
 * (scrolling up); `after` = newer than that seq (catch-up after a reconnect, and the polling
 * fallback). Always oldest first.
 */
export const MessagesQuerySchema = z
  .object({
    before: IdSchema.optional(),
    after: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
    limit: z.coerce.number().int().min(1).max(LIMITS.messagePageMax).default(LIMITS.messagePageSize),
  })
  .refine((q) => q.before === undefined || q.after === undefined, 'Use either before or after, not both.');

export const UserMatchMessagesParamsSchema = z.strictObject({ userId: IdSchema, matchId: IdSchema });

/** `POST /api/matches/:matchId/read`: everything up to `seq` has been read by the caller. */
export const MarkReadBodySchema = z.strictObject({ seq: z.number().int().min(0) });
