import { z } from 'zod';
import { parseSettings } from '../settings';

// Settings of the Bluesky (AT Protocol) link (docs/bluesky.md).

const AtprotoEnvSchema = z.object({
  /** The https origin people browse (e.g. https://podmatch.example): makes this a confidential web client. */
  PUBLIC_URL: z.string().url().optional(),
  /** The client's private ES256 key as a JWK (JSON), required with an https PUBLIC_URL. */
  ATPROTO_PRIVATE_KEY: z.string().trim().min(1).optional(),
  /** Where DID documents are read (`GET {url}/{did}`). */
  ATPROTO_PLC_URL: z.string().url().default('https://plc.directory'),
  /** An XRPC service answering com.atproto.identity.resolveHandle; unset: DNS TXT and https well-known. */
  ATPROTO_HANDLE_RESOLVER: z.string().url().optional(),
  /** The callback URL registered in the client metadata; defaults from PUBLIC_URL or the local port. */
  ATPROTO_CALLBACK_URL: z.string().url().optional(),
  /**
   * AT Protocol servers on private or loopback addresses, custom ports and plain http are refused in
   * production (anyone's DID document could point this server at internal hosts). `true` accepts
   * them, for a staging deployment against a self-hosted PDS; never on a public server.
   */
  ATPROTO_ALLOW_PRIVATE_ADDRESSES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

import { BLUESKY_CALLBACK_PATH, BLUESKY_JWKS_PATH, BLUESKY_METADATA_PATH } from '@shared/api/bluesky';

export { BLUESKY_CALLBACK_PATH, BLUESKY_JWKS_PATH, BLUESKY_METADATA_PATH };
/** Identity only: the link proves who someone is on Bluesky and never acts for them there. */
export const BLUESKY_SCOPE = 'atproto';

export type AtprotoClientKind =
  /** https PUBLIC_URL and a key: client metadata and JWKS served here, private_key_jwt. */
  | { kind: 'web'; publicUrl: string; privateKey: string }
  /**
   * Development, tests, and a production build run on one's own machine (an http://localhost or
   * 127.0.0.1 PUBLIC_URL): the AT Protocol loopback client (http://localhost client id, no key).
   */
  | { kind: 'loopback' }
  /** Production without an https PUBLIC_URL and key: linking answers 503 with the reason. */
  | { kind: 'unavailable'; reason: string };

export interface AtprotoConfig {
  client: AtprotoClientKind;
  callbackUrl: string;
  plcUrl: string;
  handleResolver: string | null;
  /**
   * http:// AT Protocol services on private addresses (the stand-in) are accepted outside production,
   * and in production only with ATPROTO_ALLOW_PRIVATE_ADDRESSES.
   */
  allowHttp: boolean;
}

export function loadAtprotoConfig(
  env: NodeJS.ProcessEnv,
  options: { isProduction: boolean; port: number },
): AtprotoConfig {
  const e = parseSettings(AtprotoEnvSchema, env);
  const publicUrl = e.PUBLIC_URL?.replace(/\/+$/, '');
  let client: AtprotoClientKind;
  if (publicUrl?.startsWith('https://')) {
    if (!e.ATPROTO_PRIVATE_KEY) {
      throw new Error(
        'Invalid configuration:\n  ATPROTO_PRIVATE_KEY: required with an https PUBLIC_URL (an ES256 private JWK; docs/bluesky.md)',
      );
    }
    client = { kind: 'web', publicUrl, privateKey: e.ATPROTO_PRIVATE_KEY };
  } else if (!options.isProduction || (publicUrl && isLoopbackOrigin(publicUrl))) {
    client = { kind: 'loopback' };
  } else {
    client = { kind: 'unavailable', reason: 'Linking Bluesky is not set up on this server yet.' };
  }
  const callbackUrl =
    e.ATPROTO_CALLBACK_URL ??
    (client.kind === 'web'
      ? `${client.publicUrl}${BLUESKY_CALLBACK_PATH}`
      : `http://127.0.0.1:${options.port}${BLUESKY_CALLBACK_PATH}`);
  return {
    client,
    callbackUrl,
    plcUrl: e.ATPROTO_PLC_URL,
    handleResolver: e.ATPROTO_HANDLE_RESOLVER ?? null,
    allowHttp: !options.isProduction || e.ATPROTO_ALLOW_PRIVATE_ADDRESSES,
  };
}

/** An http origin on this machine (the loopback client's, and development's). */
export const isLoopbackOrigin = (url: string) => /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(url);
