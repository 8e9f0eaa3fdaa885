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
