import { STORAGE_KEYS } from '@shared/constants';
import { createStore } from 'jotai';
import { describe, expect, it } from 'vitest';
import {
  clearAllStorage,
  endSession,
  readStoredSession,
  readStoredToken,
  reloadSession,
  replaceToken,
  sessionAtom,
  startSession,
  writeStoredSession,
} from './session';

describe('stored session', () => {
  it('writes token and user id to both localStorage and sessionStorage', () => {
    writeStoredSession({ token: 'tok-1', userId: 12 });
    for (const storage of [localStorage, sessionStorage]) {
      expect(storage.getItem(STORAGE_KEYS.token)).toBe('tok-1');
      expect(storage.getItem(STORAGE_KEYS.userId)).toBe('12');
    }
    expect(readStoredSession()).toEqual({ token: 'tok-1', userId: 12 });
  });

  it('prefers localStorage over sessionStorage', () => {
    localStorage.setItem(STORAGE_KEYS.token, 'local');
    localStorage.setItem(STORAGE_KEYS.userId, '1');
    sessionStorage.setItem(STORAGE_KEYS.token, 'session');
    sessionStorage.setItem(STORAGE_KEYS.userId, '2');
    expect(readStoredSession()).toEqual({ token: 'local', userId: 1 });
  });

  it('falls back to sessionStorage when localStorage is empty', () => {
    sessionStorage.setItem(STORAGE_KEYS.token, 'session');
    sessionStorage.setItem(STORAGE_KEYS.userId, '2');
    expect(readStoredSession()).toEqual({ token: 'session', userId: 2 });
    expect(readStoredToken()).toBe('session');
  });

  it.each(['abc', '12abc', '-3', '1.5', '0', ' 4'])('clears the stored session when the user id is %j', (userId) => {
    writeStoredSession({ token: 'tok', userId: 1 });
    localStorage.setItem(STORAGE_KEYS.userId, userId);
    expect(readStoredSession()).toBeNull();
    for (const storage of [localStorage, sessionStorage]) {
      expect(storage.getItem(STORAGE_KEYS.token)).toBeNull();
      expect(storage.getItem(STORAGE_KEYS.userId)).toBeNull();
    }
  });

  it('clears a token stored without a user id', () => {
    localStorage.setItem(STORAGE_KEYS.token, 'orphan');
    expect(readStoredSession()).toBeNull();
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
  });

  it('returns null when nothing is stored', () => {
    expect(readStoredSession()).toBeNull();
  });

  it('clearAllStorage wipes both storages entirely', () => {
    localStorage.setItem('other', 'x');
    sessionStorage.setItem('other', 'y');
    writeStoredSession({ token: 't', userId: 3 });
    clearAllStorage();
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
  });
});

describe('session atom', () => {
  it('starts from storage in a fresh store', () => {
    writeStoredSession({ token: 'tok', userId: 5 });
    expect(createStore().get(sessionAtom)).toEqual({ token: 'tok', userId: 5 });
  });

  it('startSession, replaceToken and endSession keep storage and state in step', () => {
    const store = createStore();
    expect(store.get(sessionAtom)).toBeNull();

    startSession({ token: 'a', userId: 9 }, store);
    expect(store.get(sessionAtom)).toEqual({ token: 'a', userId: 9 });
    expect(sessionStorage.getItem(STORAGE_KEYS.userId)).toBe('9');

    replaceToken('b', store);
    expect(store.get(sessionAtom)).toEqual({ token: 'b', userId: 9 });
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBe('b');
    expect(sessionStorage.getItem(STORAGE_KEYS.token)).toBe('b');

    endSession(store);
    expect(store.get(sessionAtom)).toBeNull();
    expect(readStoredSession()).toBeNull();
  });
});

describe('reloadSession', () => {
  it('reads storage again after another tab changed it', () => {
    const store = createStore();
    expect(store.get(sessionAtom)).toBeNull();
    writeStoredSession({ token: 'other-tab', userId: 11 });
    expect(store.get(sessionAtom)).toBeNull();
    reloadSession(store);
    expect(store.get(sessionAtom)).toEqual({ token: 'other-tab', userId: 11 });
  });

  it("leaves another tab's half-written login alone (the token's event comes before the id is stored)", () => {
    localStorage.clear();
    sessionStorage.clear();
    const store = createStore();
    expect(store.get(sessionAtom)).toBeNull();
    localStorage.setItem(STORAGE_KEYS.token, 'other-tab');
    reloadSession(store);
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBe('other-tab');
    localStorage.setItem(STORAGE_KEYS.userId, '11');
    reloadSession(store);
    expect(store.get(sessionAtom)).toEqual({ token: 'other-tab', userId: 11 });
  });
});
