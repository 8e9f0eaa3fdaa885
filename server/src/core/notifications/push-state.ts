// What the server and the worker share about pushes in Redis (docs/notifications.md): which devices
// have a focused tab now (no pushes to them meanwhile), and which conversations' notifications a
// person's devices show (a read on one device clears them on the others).
import type { Redis } from 'ioredis';

/** A device's focus lasts this long unless its tab says so again (it does every 30 s while focused). */
export const FOCUS_TTL_MS = 60_000;

export const pushKeys = {
  focus: (deviceId: number) => `podmatch:push:focus:${deviceId}`,
  /** Set when a conversation's notification was shown to this person, until they read it. */
  shown: (userId: number, tag: string) => `podmatch:push:shown:${userId}:${tag}`,
  /** A conversation's (or a kind's) last notification: at most one per cooldown. */
  cooldown: (userId: number, tag: string) => `podmatch:push:cooldown:${userId}:${tag}`,
  /** The devices this job already delivered to (a retry sends only to the rest). */
  delivered: (jobId: string) => `podmatch:push:delivered:${jobId}`,
} as const;

export async function setDeviceFocus(redis: Redis, deviceId: number, focused: boolean): Promise<void> {
  if (focused) await redis.set(pushKeys.focus(deviceId), '1', 'PX', FOCUS_TTL_MS);
  else await redis.del(pushKeys.focus(deviceId));
}

/** The ids among `deviceIds` that have a focused tab now. */
export async function focusedDevices(redis: Redis, deviceIds: number[]): Promise<Set<number>> {
  if (deviceIds.length === 0) return new Set();
  const flags = await redis.mget(deviceIds.map((id) => pushKeys.focus(id)));
  return new Set(deviceIds.filter((_, i) => flags[i] !== null));
}
