import { z } from 'zod';
import { LIMITS } from '../constants';
import { SelfUserSchema } from './user';

export const DevLoginBodySchema = z.strictObject({
  username: z
    .string({ error: 'Username required' })
    .trim()
    .min(1, 'Username required')
    .max(LIMITS.usernameMaxLength, `Username must be at most ${LIMITS.usernameMaxLength} characters`)
    .regex(/^[A-Za-z0-9_.-]+$/, 'Username may contain letters, digits, dot, dash and underscore'),
});
export type DevLoginBody = z.infer<typeof DevLoginBodySchema>;

export const LoginResponseSchema = z.object({ token: z.string(), user: SelfUserSchema });
export type LoginResponse = z.infer<typeof LoginResponseSchema>;

export const OkResponseSchema = z.object({ ok: z.literal(true) });
