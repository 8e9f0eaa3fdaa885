import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { UserSchema } from './user.entity';

/**
 * One browser on one device that may receive pushes while the app is closed (a Web Push
 * subscription, docs/notifications.md). The endpoint is a capability URL at the browser's push
 * service and the keys encrypt what is sent to it: hidden from serialization, never returned.
 */
export const PushDeviceSchema = defineEntity({
  name: 'PushDevice',
  tableName: 'push_devices',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(UserSchema).fieldName('user_id').deleteRule('cascade').index(),
    endpoint: p.string().length(2048).unique().hidden(),
    /** The browser's P-256 public key and auth secret (base64url), for RFC 8291 encryption. */
    p256dh: p.string().length(200).hidden(),
    auth: p.string().length(100).hidden(),
    deviceLabel: p.string().length(60),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The last push this device's service accepted. */
    lastUsedAt: p.datetime().nullable(),
  },
});
export type PushDevice = InferEntity<typeof PushDeviceSchema>;

/**
 * What a person wants pushed (docs/notifications.md); no row: the defaults
 * (DEFAULT_NOTIFICATION_PREFERENCES). Quiet hours are three columns, all set or all null.
 */
export const NotificationPreferenceSchema = defineEntity({
  name: 'NotificationPreference',
  tableName: 'notification_preferences',
  properties: {
    user: () => p.manyToOne(UserSchema).fieldName('user_id').primary().deleteRule('cascade'),
    matches: p.boolean().default(true),
    messages: p.boolean().default(true),
    videos: p.boolean().default(true),
    previews: p.boolean().default(false),
    paused: p.boolean().default(false),
    /** "HH:MM" in `timeZone`. */
    quietStart: p.string().length(5).nullable(),
    quietEnd: p.string().length(5).nullable(),
    timeZone: p.string().length(64).nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type NotificationPreference = InferEntity<typeof NotificationPreferenceSchema>;
