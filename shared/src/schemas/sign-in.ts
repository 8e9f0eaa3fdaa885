import { z } from 'zod';

// Sign-in for everyone (docs/auth.md): emailed codes, passkeys, and the list of an account's ways in.

export const EMAIL_CODE_LENGTH = 6;
export const EMAIL_CODE_TTL_MINUTES = 10;
/** Wrong tries a code takes before it is dead and a new one must be asked for. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
export const PASSKEY_NAME_MAX_LENGTH = 60;

export const EmailSchema = z
  .string({ error: 'Enter your email address.' })
  .trim()
  .toLowerCase()
  .max(254, 'That email address is too long.')
  .pipe(z.email({ error: 'That does not look like an email address.' }));

export const OneTimeCodeSchema = z
  .string({ error: 'Enter the 6-digit code.' })
  .trim()
  .regex(/^\d{6}$/, 'The code is 6 digits.');

export const EmailCodeStartBodySchema = z.strictObject({ email: EmailSchema });
export const EmailCodeVerifyBodySchema = z.strictObject({ email: EmailSchema, code: OneTimeCodeSchema });
export const ReauthEmailVerifyBodySchema = z.strictObject({ code: OneTimeCodeSchema });
/** The same answer whether the address has an account or not (no enumeration). */
export const EmailCodeSentSchema = z.object({ ok: z.literal(true), expiresInMinutes: z.number().int() });
export type EmailCodeSent = z.infer<typeof EmailCodeSentSchema>;

/**
 * The `error` of a refused code (400) and the sentence for people in `message`. A code is used
 * once, lives EMAIL_CODE_TTL_MINUTES and dies after EMAIL_CODE_MAX_ATTEMPTS wrong tries; `noCode`
 * also answers an address no code was sent to (or one whose code a newer one replaced).
 */
export const EMAIL_CODE_ERRORS = {
  wrong: 'code_wrong',
  expired: 'code_expired',
  locked: 'code_locked',
  used: 'code_used',
  noCode: 'code_missing',
} as const;

export const EMAIL_AUTH_TEXTS = {
  wrong: (triesLeft: number) => `That code is not right. ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left.`,
  expired: 'That code has expired. Ask for a new one.',
  locked: 'Too many wrong tries. Ask for a new code.',
  used: 'That code was already used. Ask for a new one.',
  noCode: 'There is no code waiting for that address. Ask for a new one.',
  /** 409 on linking: the address is another account's way in. */
  addressTaken:
    'That email address already signs in to another account. Sign in with it there, or use another address.',
  /** 409 on linking the address the account already has. */
  alreadyYours: 'That is already the email address of your account.',
  /** 409 on a re-authentication by email for an account without an address. */
  noAddress: 'Your account has no email address to send a code to. Confirm it is you with a passkey instead.',
  /** 503: the mail server did not take the message. */
  notSent: 'We could not send the email just now. Please try again in a few minutes.',
  /** 404: this server sends no email (production without SMTP_URL). */
  unavailable: 'Sign-in by email is not available on this server.',
} as const;

/**
 * WebAuthn options and credentials travel as the JSON of the WebAuthn Level 3 spec
 * (PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON, ...); @simplewebauthn on
 * both sides reads and checks them, so the contract only says they are objects.
 */
const WebAuthnJsonSchema = z.record(z.string(), z.unknown());
export const PasskeyOptionsSchema = z.object({ options: WebAuthnJsonSchema });
export type PasskeyOptions = z.infer<typeof PasskeyOptionsSchema>;
export const PasskeySignUpOptionsBodySchema = z.strictObject({});
export const PasskeyCredentialBodySchema = z.strictObject({ response: WebAuthnJsonSchema });
export const PasskeyAddBodySchema = z.strictObject({
  response: WebAuthnJsonSchema,
  name: z.string().trim().min(1).max(PASSKEY_NAME_MAX_LENGTH).optional(),
});

export const SIGN_IN_WAY_KINDS = ['passkey', 'email', 'bluesky', 'spotify', 'devLogin'] as const;
export type SignInWayKind = (typeof SIGN_IN_WAY_KINDS)[number];

export const SignInWaySchema = z.object({
  /** The identity's id; null for the development login (not an identity, development only). */
  id: z.number().int().nullable(),
  kind: z.enum(SIGN_IN_WAY_KINDS),
  /** What the person sees: a passkey's name, the address, the handle, "Spotify". */
  label: z.string(),
  createdAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  /** Passkeys: synced to the person's other devices by their password manager. */
  backedUp: z.boolean().nullable(),
});
export type SignInWay = z.infer<typeof SignInWaySchema>;

export const SignInWaysSchema = z.object({
  ways: z.array(SignInWaySchema),
  /** Until when adding or removing a way in needs no new proof (null: confirm first). */
  freshUntil: z.string().nullable(),
});
export type SignInWays = z.infer<typeof SignInWaysSchema>;

export const ReauthStatusSchema = z.object({ freshUntil: z.string().nullable() });
export type ReauthStatus = z.infer<typeof ReauthStatusSchema>;

export const RenamePasskeyBodySchema = z.strictObject({
  name: z
    .string({ error: 'Give the passkey a name.' })
    .trim()
    .min(1, 'Give the passkey a name.')
    .max(PASSKEY_NAME_MAX_LENGTH, `At most ${PASSKEY_NAME_MAX_LENGTH} characters.`),
});

/** Bluesky sign-in: the handle (or DID) to start with; the browser then goes to the answer's URL. */
export const BlueskySignInBodySchema = z.strictObject({
  handle: z.string({ error: 'Enter your Bluesky handle.' }).trim().min(1, 'Enter your Bluesky handle.').max(253),
});
export const BlueskySignInStartSchema = z.object({ url: z.string() });
export const BlueskyExchangeBodySchema = z.strictObject({ code: z.string().min(1).max(200) });
