// Posts one push to one device (docs/notifications.md): web-push builds the request (the payload
// encrypted end to end with the device's keys, RFC 8291; the VAPID JWT, RFC 8292), and it is sent
// here through the SSRF-filtering agent, only to a push service the settings allow.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { endpointProblem, type PushSettings } from '@server/core/notifications/push-settings';
import type { PushPayload } from '@shared/index';
import { useAgent as filteringAgentFor } from 'request-filtering-agent';
import webpush from 'web-push';

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushOptions {
  /** How long the push service keeps it for an offline device, in seconds. */
  ttlSeconds: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A newer push with the same topic replaces one the device has not fetched yet (RFC 8030). */
  topic?: string;
}

/**
 * What the push service said: delivered; `gone` (404/410: the subscription expired or was revoked,
 * drop the device); `retry` (429, 5xx, no answer: try again later); `refused` (any other answer,
 * or an endpoint the settings do not allow: retrying cannot help).
 */
export type PushOutcome =
  | { kind: 'sent' }
  | { kind: 'gone'; status: number }
  | { kind: 'retry'; reason: string }
  | { kind: 'refused'; reason: string };

const TIMEOUT_MS = 10_000;
const LOOPBACK = ['127.0.0.1', '::1'];

export class PushSender {
  constructor(private readonly settings: PushSettings) {}

  get enabled(): boolean {
    return this.settings.vapid !== null;
  }

  /** One notification per conversation in this long (PUSH_MESSAGE_COOLDOWN_SECONDS). */
  get messageCooldownMs(): number {
    return this.settings.messageCooldownMs;
  }

  /**
   * The id of a job's notification: the same for every attempt of the job, and telling the device
   * nothing about the job (keyed with the VAPID private key).
   */
  notificationId(jobId: string): string {
    return createHmac('sha256', this.settings.vapid?.privateKey ?? '')
      .update(`notification:${jobId}`)
      .digest('base64url')
      .slice(0, 22);
  }

  async send(target: PushTarget, payload: PushPayload, options: PushOptions): Promise<PushOutcome> {
    const vapid = this.settings.vapid;
    if (!vapid) return { kind: 'refused', reason: 'no VAPID keys' };
    const problem = endpointProblem(target.endpoint, this.settings);
    if (problem) return { kind: 'refused', reason: `endpoint ${problem}` };
    const request = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      JSON.stringify(payload),
      {
        vapidDetails: vapid,
        TTL: options.ttlSeconds,
        urgency: options.urgency,
        ...(options.topic ? { topic: options.topic } : {}),
        contentEncoding: 'aes128gcm',
      },
    );
    try {
      const status = await this.post(request.endpoint, request.headers, request.body);
      if (status >= 200 && status < 300) return { kind: 'sent' };
      if (status === 404 || status === 410) return { kind: 'gone', status };
      if (status === 429 || status >= 500) return { kind: 'retry', reason: `push service answered ${status}` };
      return { kind: 'refused', reason: `push service answered ${status}` };
    } catch (error) {
      return { kind: 'retry', reason: (error as Error).message };
    }
  }

  private post(endpoint: string, headers: Record<string, string | number>, body: Buffer | null): Promise<number> {
    const url = new URL(endpoint);
    // The push service is on the public internet; only the tests' stand-in is on this machine.
    const agent = filteringAgentFor(url.toString(), {
      allowIPAddressList: this.settings.allowLoopback ? LOOPBACK : [],
      keepAlive: false,
    });
    const send = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(url, { method: 'POST', headers, agent, timeout: TIMEOUT_MS }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  }
}
