import { z } from 'zod';
import { LIMITS } from '../constants';
import { SelfUserSchema } from './user';

/** Usernames compare ignoring case: "Maya_Newbie" logs into the account "maya_newbie". */
export const DevLoginBodySchema = z.strictObject({
  username: z
    .string({ error: 'Username required' })
    .trim()
    .min(1, 'Username required')
    .max(LIMITS.usernameMaxLength, `Usernames can be at most ${LIMITS.usernameMaxLength} characters.`)
    .regex(/^[A-Za-z0-9_.-]+$/, 'Usernames can contain only letters, digits, dots, dashes and underscores.'),
});
export type DevLoginBody = z.infer<typeof DevLoginBodySchema>;

export const LoginResponseSchema = z.object({ token: z.string(), user: SelfUserSchema });

/** The ways in this server offers; the login screen shows only these (docs/auth.md). */
export const SignInMethodsSchema = z.object({
  passkey: z.boolean(),
  email: z.boolean(),
  bluesky: z.boolean(),
  spotify: z.boolean(),
  devLogin: z.boolean(),
});
export type SignInMethods = z.infer<typeof SignInMethodsSchema>;
export type LoginResponse = z.infer<typeof LoginResponseSchema>;

export const OkResponseSchema = z.object({ ok: z.literal(true) });
