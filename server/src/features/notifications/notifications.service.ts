// Push notification settings (docs/notifications.md): the devices of a person that may receive
// pushes, what they want pushed, and which of their devices has a focused tab right now.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { NotificationPreferences, NotificationSettings, PushDevice, PushSubscribeBody } from '@shared/index';
import type { Redis } from 'ioredis';
import type { NotificationPreferenceSchema, PushDeviceSchema } from '../../core/db/entities';
import { type RowOf, sql } from '../../core/db/sql';
import { preferencesOf, toPreferences } from '../../core/notifications/preferences';
import { endpointProblem, type PushSettings } from '../../core/notifications/push-settings';
import { setDeviceFocus } from '../../core/notifications/push-state';
import { badRequest, conflict, notFound } from '../../http/errors';

/** A person keeps at most this many devices; adding one more drops the longest unused. */
export const MAX_PUSH_DEVICES = 10;

type DeviceRow = Pick<RowOf<typeof PushDeviceSchema>, 'id' | 'device_label' | 'created_at' | 'last_used_at'>;
type PreferenceRow = RowOf<typeof NotificationPreferenceSchema>;

const iso = (value: string | Date | null) => (value ? new Date(value).toISOString() : null);

function toDevice(row: DeviceRow): PushDevice {
  return {
    id: row.id,
    deviceLabel: row.device_label,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: iso(row.last_used_at),
  };
}

export async function pushDevices(em: EntityManager, userId: number): Promise<PushDevice[]> {
  const rows = await sql<DeviceRow>(
    em,
    'select id, device_label, created_at, last_used_at from push_devices where user_id = ? order by id',
    [userId],
  );
  return rows.map(toDevice);
}

export async function notificationSettings(
  em: EntityManager,
  push: PushSettings,
  userId: number,
): Promise<NotificationSettings> {
  return {
    preferences: await preferencesOf(em, userId),
    devices: await pushDevices(em, userId),
    vapidPublicKey: push.vapid?.publicKey ?? null,
  };
}

export async function savePreferences(
  em: EntityManager,
  userId: number,
  preferences: NotificationPreferences,
): Promise<NotificationPreferences> {
  const quiet = preferences.quietHours;
  const [row] = await sql<PreferenceRow>(
    em,
    `insert into notification_preferences
       (user_id, matches, messages, videos, previews, paused, quiet_start, quiet_end, time_zone, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, now())
     on conflict (user_id) do update set
       matches = excluded.matches, messages = excluded.messages, videos = excluded.videos,
       previews = excluded.previews, paused = excluded.paused, quiet_start = excluded.quiet_start,
       quiet_end = excluded.quiet_end, time_zone = excluded.time_zone, updated_at = now()
     returning *`,
    [
      userId,
      preferences.matches,
      preferences.messages,
      preferences.videos,
      preferences.previews,
      preferences.paused,
      quiet?.start ?? null,
      quiet?.end ?? null,
      quiet?.timeZone ?? null,
    ],
  );
  return toPreferences(row);
}

/**
 * Registers a browser's subscription for the person. The endpoint is the browser's: registering it
 * again (new keys after the browser renewed them, or another person signing in on the same browser)
 * moves it to this person with these keys, so one browser never pushes to two accounts.
 */
export async function addPushDevice(
  em: EntityManager,
  push: PushSettings,
  userId: number,
  body: PushSubscribeBody,
): Promise<PushDevice> {
  if (!push.vapid) throw conflict('Notifications are not set up on this server.');
  const problem = endpointProblem(body.endpoint, push);
  if (problem) throw badRequest(`The push endpoint ${problem}.`, [{ path: 'endpoint', message: problem }]);
  checkKeys(body.keys);
  return em.transactional(async (tx) => {
    // One person's registrations one at a time: the cap below counts what the others committed.
    await sql(tx, 'select id from users where id = ? for update', [userId]);
    const [row] = await sql<DeviceRow>(
      tx,
      `insert into push_devices (user_id, endpoint, p256dh, auth, device_label, created_at)
       values (?, ?, ?, ?, ?, now())
       on conflict (endpoint) do update set
         user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth,
         device_label = excluded.device_label,
         created_at = case when push_devices.user_id = excluded.user_id then push_devices.created_at else now() end,
         last_used_at = case when push_devices.user_id = excluded.user_id then push_devices.last_used_at end
       returning id, device_label, created_at, last_used_at`,
      [userId, body.endpoint, body.keys.p256dh, body.keys.auth, body.deviceLabel],
    );
    if (!row) throw new Error('the push device was not stored');
    await sql(
      tx,
      `delete from push_devices where id in (
         select id from push_devices where user_id = ?
          order by coalesce(last_used_at, created_at) desc, id desc offset ?)`,
      [userId, MAX_PUSH_DEVICES],
    );
    return toDevice(row);
  });
}

/** A P-256 public key is 65 bytes uncompressed, an auth secret 16 (RFC 8291); anything else cannot be encrypted to. */
function checkKeys(keys: PushSubscribeBody['keys']): void {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  const auth = Buffer.from(keys.auth, 'base64url');
  const issues: { path: string; message: string }[] = [];
  if (p256dh.length !== 65 || p256dh[0] !== 4) {
    issues.push({ path: 'keys.p256dh', message: 'must be an uncompressed P-256 public key' });
  }
  if (auth.length !== 16) issues.push({ path: 'keys.auth', message: 'must be a 16-byte secret' });
  if (issues.length > 0) throw badRequest('The subscription keys are not valid.', issues);
}

export async function removePushDevice(em: EntityManager, redis: Redis, userId: number, deviceId: number) {
  const rows = await sql<{ id: number }>(em, 'delete from push_devices where id = ? and user_id = ? returning id', [
    deviceId,
    userId,
  ]);
  if (rows.length === 0) throw notFound('Device not found.');
  await setDeviceFocus(redis, deviceId, false);
}

export async function setFocus(em: EntityManager, redis: Redis, userId: number, deviceId: number, focused: boolean) {
  const [row] = await sql<{ id: number }>(em, 'select id from push_devices where id = ? and user_id = ?', [
    deviceId,
    userId,
  ]);
  if (!row) throw notFound('Device not found.');
  await setDeviceFocus(redis, deviceId, focused);
}
