import { z } from 'zod';
import { INTENTS } from '../constants';

export const IntentSchema = z.enum(INTENTS);

/** A positive 32-bit integer id, as it arrives in a path or query string. */
export const IdSchema = z.coerce
  .number({ error: 'must be a number' })
  .int('must be a whole number')
  .positive('must be positive')
  .max(2_147_483_647, 'is too large');

/** Timestamps travel as ISO 8601 strings. */
export const TimestampSchema = z.iso.datetime({ offset: true });

export const ErrorBodySchema = z.object({
  error: z.string(),
  message: z.string(),
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * One page of a list (matches, a library): at most `max` items per request, whatever a caller asks,
 * so no request reads an unbounded list. Clients that show everything fetch the pages in turn
 * (`fetchAllPages` in the client) until one comes back short.
 */
export function pageQuerySchema(pageSize: number, max: number) {
  return z.object({
    limit: z.coerce.number().int().min(1).max(max, `limit can be at most ${max}`).default(pageSize),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
  });
}

/** Page sizes of the paginated lists (their caps are twice these). */
export const PAGE_SIZES = { matches: 100, library: 500 } as const;
