// Push notifications while the app is closed (docs/notifications.md): the profile's card, the
// match moment's one-time offer, and this device's focus reports. The card and the offer are lazy
// chunks (zod, the Push API calls): only the profile screen and a match moment load them.

export { NotificationsCard, NotificationsPrompt } from './lazy';
export { PushFocusHost } from './push-focus-host';
