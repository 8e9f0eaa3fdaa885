import { describe, expect, it } from 'vitest';
import { PushSender } from './push-sender';

const sender = (privateKey: string) =>
  new PushSender({
    vapid: { publicKey: 'public', privateKey, subject: 'mailto:ops@podmatch.test' },
    serviceHosts: [],
    allowLoopback: true,
    messageCooldownMs: 60_000,
  });

describe('a notification id', () => {
  it('is the same for every attempt of a job, differs between jobs, and does not show the job id', () => {
    const a = sender('private-key-a');
    expect(a.notificationId('outbox-41')).toBe(a.notificationId('outbox-41'));
    expect(a.notificationId('outbox-41')).not.toBe(a.notificationId('outbox-42'));
    expect(a.notificationId('outbox-41')).not.toContain('41');
    expect(a.notificationId('outbox-41')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // Keyed: another deployment's ids say nothing about this one's.
    expect(sender('private-key-b').notificationId('outbox-41')).not.toBe(a.notificationId('outbox-41'));
  });
});
