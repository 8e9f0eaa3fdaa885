import { STORAGE_KEYS } from '@shared/constants';
import { atom } from 'jotai';
import { atomWithDefault, RESET } from 'jotai/utils';
import { appStore } from './store';

export interface Session {
  token: string;
  userId: number;
}

type StorageName = 'localStorage' | 'sessionStorage';
const STORAGES: readonly StorageName[] = ['localStorage', 'sessionStorage'];

// Storage can throw (disabled cookies, private mode quotas): a broken storage counts as empty.
function storage(name: StorageName): Storage | null {
  try {
    return globalThis[name] ?? null;
  } catch {
    return null;
  }
}

function read(key: string): string | null {
  for (const name of STORAGES) {
    try {
      const value = storage(name)?.getItem(key);
      if (value) return value;
    } catch {
      // try the next storage
    }
  }
  return null;
}

function write(key: string, value: string): void {
  for (const name of STORAGES) {
    try {
      storage(name)?.setItem(key, value);
    } catch {
      // best effort: the other storage may still work
    }
  }
}

function remove(key: string): void {
  for (const name of STORAGES) {
    try {
      storage(name)?.removeItem(key);
    } catch {
      // nothing to do
    }
  }
}

const NUMERIC_ID = /^[1-9]\d{0,9}$/;

/**
 * The stored session, preferring localStorage over sessionStorage. A stored user id that is not
 * numeric (or a token without an id) invalidates the stored session, which is then cleared.
 */
export function readStoredSession(): Session | null {
  const token = read(STORAGE_KEYS.token);
  const rawUserId = read(STORAGE_KEYS.userId);
  if (!token && !rawUserId) return null;
  if (!token || !rawUserId || !NUMERIC_ID.test(rawUserId)) {
    clearStoredSession();
    return null;
  }
  return { token, userId: Number(rawUserId) };
}

export function readStoredToken(): string | null {
  return read(STORAGE_KEYS.token);
}

export function writeStoredSession(session: Session): void {
  write(STORAGE_KEYS.token, session.token);
  write(STORAGE_KEYS.userId, String(session.userId));
}

export function writeStoredToken(token: string): void {
  write(STORAGE_KEYS.token, token);
}

export function clearStoredSession(): void {
  remove(STORAGE_KEYS.token);
  remove(STORAGE_KEYS.userId);
}

/** Wipes both storages entirely ('Clear Local Storage & Log Out'). */
export function clearAllStorage(): void {
  for (const name of STORAGES) {
    try {
      storage(name)?.clear();
    } catch {
      // nothing to do
    }
  }
}

// Bumped to make sessionAtom read storage again (its default is otherwise computed once).
const storageVersionAtom = atom(0);

/**
 * Session state. Until something sets it, it is whatever storage holds: each jotai store reads
 * storage on first use, and again after reloadSession().
 */
export const sessionAtom = atomWithDefault<Session | null>((get) => {
  get(storageVersionAtom);
  return readStoredSession();
});

/**
 * Drops the in-memory session and reads storage again (another tab changed it, or a test did).
 * Another tab's login is written key by key: until both keys are there, nothing changes here (a
 * read now would take the half-written pair for a broken one and wipe it from under that tab).
 */
export function reloadSession(store = appStore): void {
  const halfWritten = !read(STORAGE_KEYS.token) !== !read(STORAGE_KEYS.userId);
  if (halfWritten) return;
  store.set(sessionAtom, RESET);
  store.set(storageVersionAtom, (version) => version + 1);
}

export const isSignedInAtom = atom((get) => get(sessionAtom) !== null);

/** Stores a new session (after login) in both storages and in the app state. */
export function startSession(session: Session, store = appStore): void {
  writeStoredSession(session);
  store.set(sessionAtom, session);
}

/** Forgets the session everywhere; route guards then send the user to /login. */
export function endSession(store = appStore): void {
  clearStoredSession();
  store.set(sessionAtom, null);
}

/** Replaces the token after a silent rotation (X-New-Token), keeping the user id. */
export function replaceToken(token: string, store = appStore): void {
  writeStoredToken(token);
  const current = store.get(sessionAtom);
  if (current && current.token !== token) store.set(sessionAtom, { ...current, token });
}
