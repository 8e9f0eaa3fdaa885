import { z } from 'zod';
import { OkResponseSchema } from '../schemas/auth';
import { IdSchema } from '../schemas/common';
import {
  NotificationPreferencesSchema,
  NotificationSettingsSchema,
  PushDeviceSchema,
  PushFocusBodySchema,
  PushSubscribeBodySchema,
} from '../schemas/notifications';
import { defineEndpoint } from './endpoint';
import { UserIdParams } from './params';

const DeviceParams = z.strictObject({ userId: IdSchema, deviceId: IdSchema });

/** Push notifications while the app is closed (docs/notifications.md): devices and preferences. */
export const notificationsApi = {
  notificationSettings: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/notifications',
    access: 'owner',
    params: UserIdParams,
    response: NotificationSettingsSchema,
  }),
  updateNotificationPreferences: defineEndpoint({
    method: 'PUT',
    path: '/api/users/:userId/notifications/preferences',
    access: 'owner',
    params: UserIdParams,
    body: NotificationPreferencesSchema,
    response: NotificationPreferencesSchema,
    rateLimit: { name: 'pushSettings', per: 'person' },
  }),
  /** Registers this browser's push subscription (again: the same endpoint updates its keys). */
  addPushDevice: defineEndpoint({
    method: 'POST',
    path: '/api/users/:userId/push-devices',
    access: 'owner',
    params: UserIdParams,
    body: PushSubscribeBodySchema,
    response: PushDeviceSchema,
    rateLimit: { name: 'pushSettings', per: 'person' },
  }),
  removePushDevice: defineEndpoint({
    method: 'DELETE',
    path: '/api/users/:userId/push-devices/:deviceId',
    access: 'owner',
    params: DeviceParams,
    response: OkResponseSchema,
  }),
  /** This device has a focused tab (no pushes to it meanwhile) or not any more. */
  pushDeviceFocus: defineEndpoint({
    method: 'PUT',
    path: '/api/users/:userId/push-devices/:deviceId/focus',
    access: 'owner',
    params: DeviceParams,
    body: PushFocusBodySchema,
    response: OkResponseSchema,
  }),
} as const;
