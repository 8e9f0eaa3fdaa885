import type { NoticeEvent, SessionEndedReason } from '@shared/events';
import type { Notice } from '@shared/schemas/moderation';
import { atom } from 'jotai';
import { isApiError } from './http';
import { appStore } from './store';

// Kept free of zod (type imports only): the login screen reads this on its first load.

/**
 * What a suspended or banned person is left with once they cannot sign in (docs/moderation.md): the
 * statement of reasons, and the token that lets them appeal without a session.
 */
export interface Suspension {
  notice: Notice;
  /** Lets them appeal without a session, for an hour; null when they cannot. */
  appealToken: string | null;
  /** The server's sentence when a sign-in was refused ("... suspended until ..."); null after a live suspension. */
  message: string | null;
  /** Their appeal left from this tab. */
  appealSent: boolean;
}

// sessionStorage: it survives the navigation to /login and a reload of this tab, not the tab itself
// (the appeal token is a credential for an hour, for this tab's person only).
const STORAGE_KEY = 'podmatch.suspension';

function readStored(): Suspension | null {
  try {
    const raw = globalThis.sessionStorage?.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Suspension> | null;
    if (!value?.notice?.action || typeof value.notice.action.kind !== 'string') return null;
    return {
      notice: value.notice,
      appealToken: typeof value.appealToken === 'string' ? value.appealToken : null,
      message: typeof value.message === 'string' ? value.message : null,
      appealSent: value.appealSent === true,
    };
  } catch {
    return null;
  }
}

function writeStored(value: Suspension | null): void {
  try {
    if (value) globalThis.sessionStorage?.setItem(STORAGE_KEY, JSON.stringify(value));
    else globalThis.sessionStorage?.removeItem(STORAGE_KEY);
  } catch {
    // Storage unavailable: the statement stays in memory for this page.
  }
}

const storedAtom = atom<Suspension | null | undefined>(undefined);

/** The suspension to show on the login screen, or null. */
export const suspensionAtom = atom(
  (get) => {
    const value = get(storedAtom);
    return value === undefined ? readStored() : value;
  },
  (_get, set, value: Suspension | null) => {
    writeStored(value);
    set(storedAtom, value);
  },
);

export function rememberSuspension(value: Suspension, store = appStore): void {
  store.set(suspensionAtom, value);
}

/** Back to the sign-in methods (also after a sign-in that worked). */
export function forgetSuspension(store = appStore): void {
  store.set(suspensionAtom, null);
}

export function markSuspensionAppealed(store = appStore): void {
  const current = store.get(suspensionAtom);
  if (current) store.set(suspensionAtom, { ...current, appealSent: true });
}

/** A sign-in refused because the account is suspended or banned (403 `suspended`, SuspendedErrorSchema). */
export function isSuspendedSignIn(error: unknown): boolean {
  return isApiError(error, 403) && (error.body as { error?: unknown } | undefined)?.error === 'suspended';
}

// The server sends 'moderation:notice' (with the appeal token) just before it ends the session of a
// suspended person with 'session:ended' `suspended`: the notice is held here until then.
let lastLiveNotice: NoticeEvent | null = null;

export function noteLiveNotice(event: NoticeEvent): void {
  lastLiveNotice = event;
}

/**
 * The server ended the session. After a suspension or a ban (`suspended`) the last notice that said
 * so stays for the login screen; without one (it was missed) the login screen shows the statement
 * once they try to sign in.
 */
export function sessionEndedBy(reason: SessionEndedReason, store = appStore): void {
  const event = lastLiveNotice;
  lastLiveNotice = null;
  if (reason !== 'suspended' || !event) return;
  if (event.notice.action.kind !== 'suspend' && event.notice.action.kind !== 'ban') return;
  rememberSuspension({ notice: event.notice, appealToken: event.appealToken, message: null, appealSent: false }, store);
}
