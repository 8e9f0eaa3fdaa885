// Push devices and notification preferences (docs/notifications.md): registering a browser's
// subscription, who may touch it, what is refused, and that the export lists devices and deletion
// removes them.
import { DEFAULT_NOTIFICATION_PREFERENCES, type LoginResponse } from '@shared/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPushSubscription } from '../../../../scripts/lib/push-stand-in';
import { inQuietHours } from '../../core/notifications/preferences';
import { endpointProblem, loadPushSettings } from '../../core/notifications/push-settings';
import { startTestServer, TEST_VAPID_KEYS, type TestServer, uniqueName } from '../../test/harness';
import { MAX_PUSH_DEVICES } from './notifications.service';

describe('push devices and preferences', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const subscription = () => newPushSubscription('http://127.0.0.1:9');
  const addDevice = (person: LoginResponse, body: object) =>
    server.call('POST', `/api/users/${person.user.id}/push-devices`, { token: person.token, body });
  const settings = (person: LoginResponse) =>
    server.call('GET', `/api/users/${person.user.id}/notifications`, { token: person.token });

  it('registers a device once per browser and never returns its endpoint or keys', async () => {
    const maya = await server.login(uniqueName('Maya'));
    const before = await settings(maya);
    expect(before.json).toEqual({
      preferences: DEFAULT_NOTIFICATION_PREFERENCES,
      devices: [],
      vapidPublicKey: TEST_VAPID_KEYS.publicKey,
    });
    const sub = subscription();
    const first = await addDevice(maya, { ...sub, deviceLabel: 'Chrome on Android' });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ deviceLabel: 'Chrome on Android', lastUsedAt: null });
    // The browser renewed its keys: the same endpoint again is the same device.
    const again = await addDevice(maya, { ...sub, keys: subscription().keys, deviceLabel: 'Chrome on Android' });
    expect(again.json.id).toBe(first.json.id);
    const after = await settings(maya);
    expect(after.json.devices).toHaveLength(1);
    expect(after.text).not.toContain(sub.endpoint);
    expect(after.text).not.toContain(sub.keys.auth);

    // Someone else signs in on the same browser: the device moves to them.
    const sam = await server.login(uniqueName('Sam'));
    expect((await addDevice(sam, { ...sub, deviceLabel: 'Chrome on Android' })).status).toBe(200);
    expect((await settings(maya)).json.devices).toEqual([]);
    expect((await settings(sam)).json.devices).toHaveLength(1);
  });

  it('refuses what cannot be a browser subscription, with a message', async () => {
    const maya = await server.login(uniqueName('Maya'));
    const sub = subscription();
    const cases: [object, RegExp][] = [
      [{ ...sub, keys: { ...sub.keys, p256dh: 'AAAA' }, deviceLabel: 'x' }, /keys are not valid/],
      [{ ...sub, keys: { ...sub.keys, auth: Buffer.alloc(8).toString('base64url') }, deviceLabel: 'x' }, /keys/],
      // Not a push service: the worker would post there (SSRF).
      [{ ...sub, endpoint: 'https://evil.example.com/push/1', deviceLabel: 'x' }, /not a known browser push service/],
      [{ ...sub, endpoint: 'http://10.0.0.1/push/1', deviceLabel: 'x' }, /https/],
      [{ ...sub, endpoint: 'https://user:pw@fcm.googleapis.com/fcm/send/1', deviceLabel: 'x' }, /credentials/],
      [{ ...sub, deviceLabel: 'x'.repeat(61) }, /deviceLabel/],
      [{ ...sub, deviceLabel: 'x', extra: true }, /extra|Unrecognized/i],
      [{ endpoint: sub.endpoint, deviceLabel: 'x' }, /keys/],
    ];
    for (const [body, message] of cases) {
      const res = await addDevice(maya, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toMatch(message);
    }
    const malformed = await server.call('POST', `/api/users/${maya.user.id}/push-devices`, {
      token: maya.token,
      rawBody: '{"endpoint":',
    });
    expect(malformed.status).toBe(400);
    expect((await settings(maya)).json.devices).toEqual([]);
  });

  it("refuses another person's device: removing it or reporting its focus is a 404, and it stays", async () => {
    const maya = await server.login(uniqueName('Maya'));
    const stranger = await server.login(uniqueName('Stranger'));
    const device = (await addDevice(maya, { ...subscription(), deviceLabel: 'Phone' })).json;
    const asStranger = (method: string, path: string, body?: object) =>
      server.call(method, `/api/users/${stranger.user.id}/push-devices/${device.id}${path}`, {
        token: stranger.token,
        body,
      });
    expect((await asStranger('DELETE', '')).status).toBe(404);
    expect((await asStranger('PUT', '/focus', { focused: true })).status).toBe(404);
    // And under Maya's path, the owner rule refuses the stranger.
    const forged = await server.call('DELETE', `/api/users/${maya.user.id}/push-devices/${device.id}`, {
      token: stranger.token,
    });
    expect(forged.status).toBe(403);
    expect((await settings(maya)).json.devices).toHaveLength(1);
    const removed = await server.call('DELETE', `/api/users/${maya.user.id}/push-devices/${device.id}`, {
      token: maya.token,
    });
    expect(removed.status).toBe(200);
    expect((await settings(maya)).json.devices).toEqual([]);
  });

  it(`keeps at most ${MAX_PUSH_DEVICES} devices a person, with many people registering at once`, async () => {
    const people = await Promise.all(Array.from({ length: 8 }, () => server.login(uniqueName('Many'))));
    const results = await Promise.all(
      people.flatMap((person) =>
        Array.from({ length: MAX_PUSH_DEVICES + 3 }, (_, i) =>
          addDevice(person, { ...subscription(), deviceLabel: `Browser ${i}` }),
        ),
      ),
    );
    expect(results.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
    for (const person of people) expect((await settings(person)).json.devices).toHaveLength(MAX_PUSH_DEVICES);
  });

  it('takes preferences and focus reports from many people at once, each keeping their last', async () => {
    const people = await Promise.all(Array.from({ length: 30 }, () => server.login(uniqueName('Busy'))));
    const devices = await Promise.all(
      people.map(async (person) => (await addDevice(person, { ...subscription(), deviceLabel: 'Phone' })).json.id),
    );
    // 30 people x 4 preference saves and 4 focus reports, all at once: several times the pool.
    const results = await Promise.all(
      people.flatMap((person, p) =>
        [0, 1, 2, 3].flatMap((round) => [
          server.call('PUT', `/api/users/${person.user.id}/notifications/preferences`, {
            token: person.token,
            body: { ...DEFAULT_NOTIFICATION_PREFERENCES, paused: round % 2 === 1, previews: p % 2 === 0 },
          }),
          server.call('PUT', `/api/users/${person.user.id}/push-devices/${devices[p]}/focus`, {
            token: person.token,
            body: { focused: round % 2 === 0 },
          }),
        ]),
      ),
    );
    expect(results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`)).toEqual([]);
    for (const [p, person] of people.entries()) {
      const { preferences } = (await settings(person)).json;
      expect(preferences.previews).toBe(p % 2 === 0);
    }
    const rows = await server.running.deps.orm.em
      .fork()
      .getConnection()
      .execute(
        'select count(*)::int as n from notification_preferences where user_id = any(?::int[])',
        [`{${people.map((person) => person.user.id).join(',')}}`],
        'all',
      );
    expect(rows[0]?.n).toBe(30);
  });

  it('saves preferences and quiet hours, and refuses impossible ones', async () => {
    const maya = await server.login(uniqueName('Maya'));
    const save = (body: object) =>
      server.call('PUT', `/api/users/${maya.user.id}/notifications/preferences`, { token: maya.token, body });
    const wanted = {
      ...DEFAULT_NOTIFICATION_PREFERENCES,
      messages: false,
      previews: true,
      quietHours: { start: '22:00', end: '07:30', timeZone: 'Europe/Berlin' },
    };
    expect((await save(wanted)).json).toEqual(wanted);
    expect((await settings(maya)).json.preferences).toEqual(wanted);
    for (const quietHours of [
      { start: '22:00', end: '22:00', timeZone: 'Europe/Berlin' },
      { start: '25:00', end: '07:00', timeZone: 'Europe/Berlin' },
      { start: '22:00', end: '07:00', timeZone: 'Mars/Olympus_Mons' },
    ]) {
      const res = await save({ ...wanted, quietHours });
      expect(res.status, JSON.stringify(quietHours)).toBe(400);
      expect(res.json.message).toBeTruthy();
    }
    expect((await save({ ...wanted, paused: 'yes' })).status).toBe(400);
    expect((await settings(maya)).json.preferences).toEqual(wanted);
  });

  it('lists devices in the data export, without endpoints, and account deletion removes them', async () => {
    const maya = await server.login(uniqueName('Maya'));
    const sub = subscription();
    await addDevice(maya, { ...sub, deviceLabel: 'Firefox on Linux' });
    const exported = await server.call('GET', `/api/users/${maya.user.id}/export`, { token: maya.token });
    expect(exported.status).toBe(200);
    expect(exported.json.pushDevices).toMatchObject([{ deviceLabel: 'Firefox on Linux', lastUsedAt: null }]);
    expect(exported.json.notificationPreferences).toEqual(DEFAULT_NOTIFICATION_PREFERENCES);
    expect(exported.text).not.toContain(sub.endpoint);
    const deleted = await server.call('DELETE', `/api/users/${maya.user.id}`, {
      token: maya.token,
      body: { confirm: 'DELETE' },
    });
    expect(deleted.status).toBe(200);
    const rows = await server.running.deps.orm.em
      .fork()
      .getConnection()
      .execute('select count(*)::int as n from push_devices where user_id = ?', [maya.user.id], 'all');
    expect(rows[0]?.n).toBe(0);
  });
});

describe('a server without VAPID keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ VAPID_PUBLIC_KEY: undefined, VAPID_PRIVATE_KEY: undefined });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('says push is off and registers no device', async () => {
    const maya = await server.login(uniqueName('Maya'));
    const got = await server.call('GET', `/api/users/${maya.user.id}/notifications`, { token: maya.token });
    expect(got.json.vapidPublicKey).toBeNull();
    const add = await server.call('POST', `/api/users/${maya.user.id}/push-devices`, {
      token: maya.token,
      body: { ...newPushSubscription('http://127.0.0.1:9'), deviceLabel: 'Phone' },
    });
    expect(add.status).toBe(409);
    expect(add.json.message).toMatch(/not set up/);
  });
});

describe('push settings', () => {
  const production = loadPushSettings({}, true);

  it('lets production post only to the browsers’ push services over https', () => {
    expect(endpointProblem('https://fcm.googleapis.com/fcm/send/abc', production)).toBeNull();
    expect(endpointProblem('https://updates.push.services.mozilla.com/wpush/v2/abc', production)).toBeNull();
    expect(endpointProblem('https://web.push.apple.com/QAbc', production)).toBeNull();
    expect(endpointProblem('https://db5p.notify.windows.com/w/?token=abc', production)).toBeNull();
    expect(endpointProblem('http://fcm.googleapis.com/fcm/send/abc', production)).toMatch(/https/);
    expect(endpointProblem('https://fcm.googleapis.com:8443/fcm/send/abc', production)).toMatch(/port/);
    expect(endpointProblem('https://push.apple.com.evil.com/x', production)).toMatch(/known/);
    expect(endpointProblem('https://evilpush.apple.com/x', production)).toMatch(/known/);
    expect(endpointProblem('http://127.0.0.1:9/push/1', production)).toMatch(/https/);
    expect(endpointProblem('https://169.254.169.254/latest', production)).toMatch(/known/);
  });

  it('refuses half a key pair, and loopback push services in production', () => {
    expect(() => loadPushSettings({ VAPID_PUBLIC_KEY: TEST_VAPID_KEYS.publicKey }, false)).toThrow(/both or neither/);
    expect(() => loadPushSettings({ PUSH_ALLOW_LOOPBACK: 'true' }, true)).toThrow(/PUSH_ALLOW_LOOPBACK/);
    expect(() => loadPushSettings({ VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: 'short' }, false)).toThrow(
      /VAPID_PUBLIC_KEY/,
    );
    expect(loadPushSettings({}, false).allowLoopback).toBe(true);
  });

  it('takes a conversation cooldown of 1 to 3600 seconds, a minute by default', () => {
    expect(loadPushSettings({}, true).messageCooldownMs).toBe(60_000);
    expect(loadPushSettings({ PUSH_MESSAGE_COOLDOWN_SECONDS: '5' }, true).messageCooldownMs).toBe(5000);
    for (const wrong of ['0', '3601', '1.5', 'soon']) {
      expect(() => loadPushSettings({ PUSH_MESSAGE_COOLDOWN_SECONDS: wrong }, true)).toThrow(
        /PUSH_MESSAGE_COOLDOWN_SECONDS/,
      );
    }
  });
});

describe('quiet hours', () => {
  const at = (iso: string) => new Date(iso);

  it('runs past midnight when the end comes before the start, on the clock of the time zone', () => {
    const overnight = { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' };
    // Berlin is UTC+1 in November.
    expect(inQuietHours(overnight, at('2026-11-27T21:30:00Z'))).toBe(true); // 22:30
    expect(inQuietHours(overnight, at('2026-11-27T05:59:00Z'))).toBe(true); // 06:59
    expect(inQuietHours(overnight, at('2026-11-27T06:00:00Z'))).toBe(false); // 07:00
    expect(inQuietHours(overnight, at('2026-11-27T20:59:00Z'))).toBe(false); // 21:59
    const lunch = { start: '12:00', end: '13:00', timeZone: 'America/New_York' };
    expect(inQuietHours(lunch, at('2026-11-27T17:30:00Z'))).toBe(true); // 12:30
    expect(inQuietHours(lunch, at('2026-11-27T12:30:00Z'))).toBe(false); // 07:30
    expect(inQuietHours(null, at('2026-11-27T12:30:00Z'))).toBe(false);
  });
});
