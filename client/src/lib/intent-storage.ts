import { INTENTS, type Intent } from '@shared/constants';

/**
 * A per-user copy of the intent saved on the server (users.intent, the source of truth), kept in
 * localStorage so that after a reload the app shows, and acts in, the saved intent from the first
 * render, before GET /api/users/:id answers. Storage errors count as "nothing cached".
 */
export function intentStorageKey(userId: number): string {
  return `podmatch.intent.${userId}`;
}

export function readCachedIntent(userId: number | null | undefined): Intent | null {
  if (!userId) return null;
  try {
    const value = globalThis.localStorage?.getItem(intentStorageKey(userId));
    return INTENTS.find((intent) => intent === value) ?? null;
  } catch {
    return null;
  }
}

export function writeCachedIntent(userId: number | null | undefined, intent: Intent): void {
  if (!userId) return;
  try {
    globalThis.localStorage?.setItem(intentStorageKey(userId), intent);
  } catch {
    // best effort: the server still has it
  }
}
