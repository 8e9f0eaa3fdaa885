import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/** What an emailed code proves: a sign-in (or sign-up), a new address for an account, a fresh re-authentication. */
export const EMAIL_CODE_PURPOSES = ['signIn', 'link', 'reauth'] as const;
export type EmailCodePurpose = (typeof EMAIL_CODE_PURPOSES)[number];

/**
 * A one-time code sent to an address (docs/auth.md, "Email codes"): only its hash is kept, it
 * expires, it is used once, and each wrong try counts (a code dies after five).
 */
export const EmailCodeSchema = defineEntity({
  name: 'EmailCode',
  tableName: 'email_codes',
  properties: {
    id: p.integer().primary().autoincrement(),
    /** The address, normalized (trimmed, lower case). */
    email: p.string().length(320),
    purpose: p.enum([...EMAIL_CODE_PURPOSES]),
    /** The account asking (a link or a re-authentication); null for a sign-in. */
    user: () => p.manyToOne(UserSchema).fieldName('user_id').deleteRule('cascade').nullable().index(),
    codeHash: p.string().hidden(),
    attempts: p.integer().default(0),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    { name: 'email_codes_email_purpose_index', properties: ['email', 'purpose'] },
    // Each new code sweeps a few long-dead ones (features/email-auth/email-codes.ts).
    { name: 'email_codes_expires_at_index', properties: ['expiresAt'] },
  ],
});
export type EmailCode = InferEntity<typeof EmailCodeSchema>;
