import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/** Where a linked identity comes from: an account holds any number of passkeys (one per device). */
export const IDENTITY_PROVIDERS = ['spotify', 'bluesky', 'email', 'passkey'] as const;
/**
 * The providers an account has at most one of (partial unique index
 * `user_identities_user_provider_unique`); passkeys are not among them.
 */
export const ONE_PER_ACCOUNT_PROVIDERS = ['spotify', 'bluesky', 'email'] as const;
export type IdentityProvider = (typeof IDENTITY_PROVIDERS)[number];

/**
 * `hidden: true` for a nullable column: with the literal `true` MikroORM types the value as
 * Hidden<string | null>, to which null cannot be assigned; typed as boolean it stays string | null.
 */
const HIDDEN_NULLABLE = true as boolean;

/**
 * An identity at another service linked to an account (docs/architecture.md, "Data"): who the
 * person is there (`subject`: the Spotify user id, the Bluesky DID), unique per provider, and what
 * the app holds to act as them, encrypted (core/crypto) and hidden from serialization. Loaded with
 * every user (eager): the self presenter shows what is linked.
 */
export const UserIdentitySchema = defineEntity({
  name: 'UserIdentity',
  tableName: 'user_identities',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(UserSchema).fieldName('user_id').deleteRule('cascade').index(),
    provider: p.enum([...IDENTITY_PROVIDERS]),
    /** The person's id at the provider: a Spotify user id, a DID, an email address, a credential id. */
    subject: p.string(),
    /** The name shown for it: a Bluesky handle, a passkey's name (the person may rename it). */
    handle: p.string().nullable(),
    accessToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    refreshToken: p.text().nullable().hidden(HIDDEN_NULLABLE),
    /** The rest of an OAuth session the provider's client keeps (Bluesky: DPoP key, issuer, scope). */
    session: p.text().nullable().hidden(HIDDEN_NULLABLE),
    /** When the access token expires and a refresh is due. */
    expiresAt: p.datetime().nullable(),
    /** When the person's library was last read from this identity (a Spotify sync). */
    syncedAt: p.datetime().nullable(),
    /** A passkey's COSE public key (base64url) and what its next signature is checked against. */
    publicKey: p.text().nullable().hidden(HIDDEN_NULLABLE),
    signCount: p.bigint('number').nullable(),
    /** A passkey's transports (JSON array), so a sign-in can name how to reach it. */
    transports: p.text().nullable(),
    /** Whether the passkey is synced (backed up) and whether it may be: 'singleDevice' | 'multiDevice'. */
    backedUp: p.boolean().nullable(),
    deviceType: p.string().nullable(),
    /** The last sign-in with this identity (passkeys, email). */
    lastUsedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'user_identities_provider_subject_unique', properties: ['provider', 'subject'] },
    {
      name: 'user_identities_user_provider_unique',
      expression: `create unique index "user_identities_user_provider_unique" on "user_identities" ("user_id", "provider") where "provider" in ('spotify', 'bluesky', 'email')`,
    },
  ],
});
export type UserIdentity = InferEntity<typeof UserIdentitySchema>;

/** The person's linked identity at `provider`, from the identities loaded with them (if any). */
export function identityOf(user: { identities: { getItems(): UserIdentity[] } }, provider: IdentityProvider) {
  return user.identities.getItems().find((identity) => identity.provider === provider);
}
