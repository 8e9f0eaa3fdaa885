import { createStore } from 'jotai';
import { afterEach, describe, expect, it } from 'vitest';
import { currentIntentAtom, savedIntentAtom, selectedIntentAtom } from './intent';
import { intentStorageKey, readCachedIntent } from './intent-storage';
import { startSession } from './session';

describe('savedIntentAtom', () => {
  afterEach(() => localStorage.clear());

  it('caches the mirrored server intent per user, so a fresh store (a reload) starts in it', () => {
    const before = createStore();
    startSession({ token: 't', userId: 41 }, before);
    expect(before.get(currentIntentAtom)).toBe('romantic');
    before.set(savedIntentAtom, 'professional');
    expect(readCachedIntent(41)).toBe('professional');

    const reloaded = createStore();
    startSession({ token: 't', userId: 41 }, reloaded);
    expect(reloaded.get(savedIntentAtom)).toBe('professional');
    expect(reloaded.get(currentIntentAtom)).toBe('professional');

    // Another user of the same browser has their own copy; clearing the mirror keeps the cache.
    const other = createStore();
    startSession({ token: 'u', userId: 42 }, other);
    expect(other.get(currentIntentAtom)).toBe('romantic');
    reloaded.set(savedIntentAtom, null);
    expect(reloaded.get(savedIntentAtom)).toBe('professional');
  });

  it('the intent picked in the tab still wins, and junk in storage is ignored', () => {
    localStorage.setItem(intentStorageKey(43), 'nonsense');
    const store = createStore();
    startSession({ token: 't', userId: 43 }, store);
    expect(store.get(savedIntentAtom)).toBeNull();
    store.set(savedIntentAtom, 'platonic');
    store.set(selectedIntentAtom, 'professional');
    expect(store.get(currentIntentAtom)).toBe('professional');
  });
});
