// A software WebAuthn authenticator for server-level tests: it does what the browser and a platform
// authenticator do together (navigator.credentials.create/get) with ES256 (P-256) keys from
// node:crypto, and answers the JSON that @simplewebauthn/browser would post (attestation 'none').
// Browser tests use Chromium's virtual authenticator instead.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { cose, isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

/** One passkey held by the authenticator. */
export interface SoftCredential {
  /** The credential id, base64url (what the server stores as the identity's subject). */
  id: string;
  rpId: string;
  /** The user handle the relying party gave at creation (base64url). */
  userHandle: string;
  privateKey: KeyObject;
  /** The signature counter: the next assertion reports counter + 1 (or 0 for a counterless one). */
  counter: number;
}

export interface SoftAuthenticatorSettings {
  /** Synced passkeys (the BE and BS flags), like a password manager's; default true. */
  backedUp?: boolean;
  /** Whether the authenticator keeps a signature counter (many synced passkeys report 0); default true. */
  counts?: boolean;
  /** Whether it verifies the user (the UV flag); default true. */
  verifiesUser?: boolean;
}

const FLAGS = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 } as const;
const TRANSPORTS: AuthenticatorTransportFuture[] = ['internal', 'hybrid'];

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
const uint32 = (n: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(n);
  return bytes;
};
const b64url = (data: Uint8Array | string) =>
  isoBase64URL.fromBuffer(typeof data === 'string' ? new Uint8Array(Buffer.from(data)) : new Uint8Array(data));

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  private readonly settings: Required<SoftAuthenticatorSettings>;

  constructor(settings: SoftAuthenticatorSettings = {}) {
    this.settings = { backedUp: true, counts: true, verifiesUser: true, ...settings };
  }

  private flags(extra = 0): number {
    let flags = FLAGS.up | extra;
    if (this.settings.verifiesUser) flags |= FLAGS.uv;
    if (this.settings.backedUp) flags |= FLAGS.be | FLAGS.bs;
    return flags;
  }

  /**
   * navigator.credentials.create() on a page at `origin`: a new discoverable ES256 credential for
   * the options' relying party. Like a real authenticator, it refuses when it already holds one of
   * the excluded credentials (InvalidStateError).
   */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    /** `again`: answer with this credential of the authenticator once more (what no honest one does). */
    choose: { again?: string } = {},
  ): RegistrationResponseJSON {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const excluded = new Set((options.excludeCredentials ?? []).map((c) => c.id));
    if (!choose.again && this.credentials.some((c) => c.rpId === rpId && excluded.has(c.id))) {
      throw new Error('InvalidStateError: this authenticator already holds a passkey of this account');
    }
    const again = this.credentials.find((c) => c.id === choose.again);
    const privateKey = again?.privateKey ?? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const jwk = createPublicKey(privateKey).export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [cose.COSEKEYS.kty, cose.COSEKTY.EC2],
      [cose.COSEKEYS.alg, cose.COSEALG.ES256],
      [cose.COSEKEYS.crv, cose.COSECRV.P256],
      [cose.COSEKEYS.x, new Uint8Array(Buffer.from(jwk.x ?? '', 'base64url'))],
      [cose.COSEKEYS.y, new Uint8Array(Buffer.from(jwk.y ?? '', 'base64url'))],
    ]);
    const rawId = again ? Buffer.from(again.id, 'base64url') : randomBytes(16);
    const credentialId = Buffer.alloc(2);
    credentialId.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(FLAGS.at)]),
      uint32(0),
      Buffer.alloc(16), // AAGUID: none given (attestation 'none')
      credentialId,
      rawId,
      isoCBOR.encode(coseKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.create',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    const id = b64url(rawId);
    if (!again) this.credentials.push({ id, rpId, userHandle: options.user.id, privateKey, counter: 0 });
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: TRANSPORTS,
      },
      clientExtensionResults: { credProps: { rk: true } },
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * navigator.credentials.get() on a page at `origin`: an assertion by `credentialId` (else the
   * first credential the options allow, or any of the relying party's when they list none:
   * a discoverable sign-in). `counter` overrides the counter reported (a clone's, for tests).
   */
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
    choose: { credentialId?: string; counter?: number } = {},
  ): AuthenticationResponseJSON {
    const rpId = options.rpId ?? new URL(origin).hostname;
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const credential = choose.credentialId
      ? this.credentials.find((c) => c.id === choose.credentialId)
      : this.credentials.find((c) => c.rpId === rpId && (allowed.length === 0 || allowed.includes(c.id)));
    if (!credential) throw new Error('NotAllowedError: no passkey of this authenticator fits the request');
    if (choose.counter !== undefined) credential.counter = choose.counter;
    else if (this.settings.counts) credential.counter += 1;
    const authData = Buffer.concat([
      // The relying party the assertion is for: the options' (a tampered one fails its hash).
      sha256(rpId),
      Buffer.from([this.flags()]),
      uint32(credential.counter),
    ]);
    const clientDataJSON = JSON.stringify({
      type: 'webauthn.get',
      challenge: options.challenge,
      origin,
      crossOrigin: false,
    });
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
