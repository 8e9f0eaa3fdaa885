import { z } from 'zod';
import { TimestampSchema } from './common';

/** What a notification is about (docs/notifications.md). */
export const NOTIFICATION_KINDS = ['matches', 'messages', 'videos'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** "HH:MM" on a 24-hour clock. */
const ClockTimeSchema = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time like 22:00');

/** An IANA time zone the runtime knows (Europe/Berlin, America/New_York, UTC). */
export const TimeZoneSchema = z
  .string()
  .min(1)
  .max(64)
  .refine((zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'is not a known time zone');

/**
 * Quiet hours: nothing is pushed from `start` to `end` in the person's time zone (an `end` before
 * `start` runs past midnight, 22:00 to 07:00). Equal times are refused: that would be all day, which
 * is what "pause all" is for.
 */
export const QuietHoursSchema = z
  .strictObject({ start: ClockTimeSchema, end: ClockTimeSchema, timeZone: TimeZoneSchema })
  .refine((quiet) => quiet.start !== quiet.end, { message: 'start and end must differ', path: ['end'] });
export type QuietHours = z.infer<typeof QuietHoursSchema>;

/** What a person wants pushed to their devices while the app is closed; stored on the server. */
export const NotificationPreferencesSchema = z.strictObject({
  matches: z.boolean(),
  messages: z.boolean(),
  videos: z.boolean(),
  /** Show the message's text in a notification (off: "Maya sent you a message"). */
  previews: z.boolean(),
  /** Nothing at all is pushed while paused. */
  paused: z.boolean(),
  quietHours: QuietHoursSchema.nullable(),
});
export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>;

export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = {
  matches: true,
  messages: true,
  videos: true,
  previews: false,
  paused: false,
  quietHours: null,
};

/** One browser on one device that may receive pushes (a Web Push subscription). */
export const PushDeviceSchema = z.object({
  id: z.number().int(),
  /** "Chrome on Android": from the browser, editable by nobody else. */
  deviceLabel: z.string(),
  createdAt: TimestampSchema,
  lastUsedAt: TimestampSchema.nullable(),
});
export type PushDevice = z.infer<typeof PushDeviceSchema>;

export const NotificationSettingsSchema = z.object({
  preferences: NotificationPreferencesSchema,
  devices: z.array(PushDeviceSchema),
  /** The server's VAPID public key (base64url), for `pushManager.subscribe`; null: push is off here. */
  vapidPublicKey: z.string().nullable(),
});
export type NotificationSettings = z.infer<typeof NotificationSettingsSchema>;

/** base64url without padding, as `PushSubscription.toJSON()` gives the keys. */
const Base64UrlSchema = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url');

/** `PushSubscription.toJSON()` as the browser gives it, plus a label for the device list. */
export const PushSubscribeBodySchema = z.strictObject({
  endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.strictObject({ p256dh: Base64UrlSchema(200), auth: Base64UrlSchema(100) }),
  deviceLabel: z.string().trim().min(1).max(60),
});
export type PushSubscribeBody = z.infer<typeof PushSubscribeBodySchema>;

/** A tab of this device is open and focused (true) or not any more (false); see docs/notifications.md. */
export const PushFocusBodySchema = z.strictObject({ focused: z.boolean() });
export type PushFocusBody = z.infer<typeof PushFocusBodySchema>;

/**
 * What a push carries to the service worker (encrypted end to end by Web Push). `clear` closes the
 * notification with `tag` (read on another device). No message text unless the person turned
 * previews on.
 */
export const PushPayloadSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('show'),
    kind: z.enum(NOTIFICATION_KINDS),
    /** Notifications with the same tag replace each other: one per conversation. */
    tag: z.string(),
    title: z.string(),
    body: z.string(),
    /** The screen a tap opens (an app path). */
    url: z.string().startsWith('/'),
    /**
     * An id of the sending job (the same for each attempt). A worker killed between the push
     * service's answer and its record of it sends again once restarted, with the same id: the
     * device updates the notification without alerting twice.
     */
    id: z.string().max(200).optional(),
  }),
  z.object({ type: z.literal('clear'), tag: z.string() }),
]);
export type PushPayload = z.infer<typeof PushPayloadSchema>;

/** The tag of a conversation's notifications. */
export const chatNotificationTag = (matchId: number) => `chat-${matchId}`;
