import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { mount } from '../../http/route';
import {
  addPushDevice,
  notificationSettings,
  removePushDevice,
  savePreferences,
  setFocus,
} from './notifications.service';

// Push notifications while the app is closed (docs/notifications.md): owner only.
export function notificationsRoutes(deps: AppDeps): Router {
  const router = Router();

  mount(router, api.notificationSettings, ({ auth, req }) =>
    notificationSettings(req.em, deps.config.push, auth.userId),
  );

  mount(router, api.updateNotificationPreferences, ({ auth, body, req }) => savePreferences(req.em, auth.userId, body));

  mount(router, api.addPushDevice, ({ auth, body, req }) => addPushDevice(req.em, deps.config.push, auth.userId, body));

  mount(router, api.removePushDevice, async ({ auth, params, req }) => {
    await removePushDevice(req.em, deps.redis, auth.userId, params.deviceId);
    return { ok: true as const };
  });

  mount(router, api.pushDeviceFocus, async ({ auth, params, body, req }) => {
    await setFocus(req.em, deps.redis, auth.userId, params.deviceId, body.focused);
    return { ok: true as const };
  });

  return router;
}
