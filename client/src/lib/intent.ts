import { DEFAULT_INTENT, type Intent } from '@shared/constants';
import { atom } from 'jotai';

/**
 * The intent picked in this tab (switcher, shared-link hash); null means "use the saved one".
 * The feed changes it locally; the profile also saves it on the server (SPEC section 4).
 */
export const selectedIntentAtom = atom<Intent | null>(null);

/** The signed-in user's saved intent, mirrored from their user query once it is loaded. */
export const savedIntentAtom = atom<Intent | null>(null);

/** The intent the app shows: picked in this tab, else saved, else the default (romantic). */
export const currentIntentAtom = atom<Intent>(
  (get) => get(selectedIntentAtom) ?? get(savedIntentAtom) ?? DEFAULT_INTENT,
);
