/// <reference path="./http-ece.d.ts" />
// A local Web Push service (tests only: the server, worker and browser tests), speaking the protocol the browsers' push services speak
// (RFC 8030 delivery, RFC 8291 aes128gcm encryption, RFC 8292 VAPID): it takes the encrypted POST a
// sender makes to a subscription's endpoint, checks the VAPID JWT's ES256 signature against the key
// in the Authorization header and its audience and expiry, and decrypts the payload with the
// subscription's private key and auth secret exactly as a browser would. Answers 201, or the
// status a test set for an endpoint (410 for an expired subscription, 429, 503).
import { createECDH, createPublicKey, type ECDH, randomBytes, randomUUID, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';

export interface TestPushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface ReceivedPush {
  endpoint: string;
  /** The decrypted payload, parsed as JSON. */
  payload: unknown;
  ttl: number;
  urgency: string | undefined;
  topic: string | undefined;
  /** The VAPID public key that signed it. */
  vapidKey: string;
  at: number;
}

/** The browser's half of each subscription made here: what decrypts the pushes sent to it. */
const browserKeys = new Map<string, { ecdh: ECDH; auth: Buffer }>();

/**
 * A subscription as `PushSubscription.toJSON()` gives it, with real P-256 keys made as a browser
 * makes them; `serviceUrl` is the push service's (a stand-in's `url`, or any address in tests that
 * never deliver).
 */
export function newPushSubscription(serviceUrl: string): TestPushSubscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const endpoint = `${serviceUrl}/push/${randomUUID()}`;
  browserKeys.set(endpoint, { ecdh, auth });
  return { endpoint, keys: { p256dh: ecdh.getPublicKey('base64url'), auth: auth.toString('base64url') } };
}

export interface PushService {
  url: string;
  newSubscription(): TestPushSubscription;
  /** Everything delivered (201), oldest first; only an endpoint's with `endpoint`. */
  received(endpoint?: string): ReceivedPush[];
  /** Resolves once `count` pushes were delivered (to `endpoint` if given). */
  waitForPushes(count: number, options?: { endpoint?: string; timeoutMs?: number }): Promise<ReceivedPush[]>;
  /** Answers this status to the endpoint's next pushes (`times`: that many, then 201 again; default: all). */
  respondWith(endpoint: string, status: number, times?: number): void;
  /** The endpoint's next push is received at once but answered (201) only `ms` later: a slow service. */
  answerNextAfter(endpoint: string, ms: number): void;
  /** Requests refused (bad VAPID, undecryptable, a set status), with the reason. */
  refused(): { endpoint: string; status: number; reason: string }[];
  close(): Promise<void>;
}

export async function startPushService(options: { vapidPublicKey?: string } = {}): Promise<PushService> {
  const received: ReceivedPush[] = [];
  const refused: { endpoint: string; status: number; reason: string }[] = [];
  const statuses = new Map<string, { status: number; times: number }>();
  const slowAnswers = new Map<string, number>();
  const waiters = new Set<() => void>();
  let url = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const endpoint = `${url}${req.url ?? ''}`;
      const answer = (status: number, reason?: string) => {
        if (reason) refused.push({ endpoint, status, reason });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(reason ?? '');
      };
      if (req.method !== 'POST' || !req.url?.startsWith('/push/')) return answer(404, 'no such subscription');
      const set = statuses.get(endpoint);
      if (set) {
        if (set.times !== Number.POSITIVE_INFINITY && --set.times <= 0) statuses.delete(endpoint);
        return answer(set.status, `status set by the test: ${set.status}`);
      }
      const keys = browserKeys.get(endpoint);
      if (!keys) return answer(410, 'subscription unknown or expired');
      const vapid = checkVapid(req.headers.authorization, url, options.vapidPublicKey);
      if (typeof vapid === 'string') return answer(403, vapid);
      if (req.headers['content-encoding'] !== 'aes128gcm') return answer(415, 'content-encoding must be aes128gcm');
      const ttl = Number(req.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) return answer(400, 'TTL header missing');
      let payload: unknown;
      try {
        const plain = ece.decrypt(Buffer.concat(chunks), {
          version: 'aes128gcm',
          privateKey: keys.ecdh,
          authSecret: keys.auth,
        });
        payload = JSON.parse(plain.toString('utf8'));
      } catch (error) {
        return answer(400, `payload could not be decrypted: ${(error as Error).message}`);
      }
      received.push({
        endpoint,
        payload,
        ttl,
        urgency: header(req.headers.urgency),
        topic: header(req.headers.topic),
        vapidKey: vapid.key,
        at: Date.now(),
      });
      for (const wake of waiters) wake();
      const delayMs = slowAnswers.get(endpoint);
      slowAnswers.delete(endpoint);
      if (delayMs) setTimeout(() => answer(201), delayMs);
      else answer(201);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const of = (endpoint?: string) => (endpoint ? received.filter((r) => r.endpoint === endpoint) : [...received]);

  return {
    url,
    newSubscription: () => newPushSubscription(url),
    received: of,
    refused: () => [...refused],
    respondWith(endpoint, status, times = Number.POSITIVE_INFINITY) {
      statuses.set(endpoint, { status, times });
    },
    answerNextAfter(endpoint, ms) {
      slowAnswers.set(endpoint, ms);
    },
    waitForPushes(count, { endpoint, timeoutMs = 15_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const list = of(endpoint);
          if (list.length < count) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(list);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${of(endpoint).length} of ${count} pushes arrived in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * RFC 8292: `Authorization: vapid t=<JWT>, k=<public key>`; the JWT is ES256-signed by that key,
 * its `aud` is the push service's origin, `exp` within 24 hours, `sub` a mailto: or https: contact.
 */
function checkVapid(authorization: string | undefined, origin: string, expectedKey?: string): { key: string } | string {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match?.[1] || !match[2]) return 'Authorization must be "vapid t=..., k=..."';
  const [token, key] = [match[1], match[2]];
  if (expectedKey && key !== expectedKey) return 'VAPID key is not the one this subscription was made with';
  const parts = token.split('.');
  if (parts.length !== 3) return 'VAPID token is not a JWT';
  const [head, body, signature] = parts as [string, string, string];
  const raw = Buffer.from(key, 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) return 'VAPID key is not an uncompressed P-256 point';
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) return 'VAPID signature does not verify';
  const alg = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  if (alg.alg !== 'ES256') return 'VAPID token must be ES256';
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    aud?: string;
    exp?: number;
    sub?: string;
  };
  const now = Math.floor(Date.now() / 1000);
  if (claims.aud !== origin) return `VAPID audience ${claims.aud} is not ${origin}`;
  if (!claims.exp || claims.exp <= now || claims.exp > now + 24 * 3600) return 'VAPID token expired or too long-lived';
  if (!claims.sub || !/^(mailto:|https:)/.test(claims.sub)) return 'VAPID subject must be mailto: or https:';
  return { key };
}
