import { DEFAULT_INTENT, type Intent } from '@shared/constants';
import { atom } from 'jotai';
import { readCachedIntent, writeCachedIntent } from './intent-storage';
import { sessionAtom } from './session';

/**
 * The intent picked in this tab (switcher, shared-link hash); null means "use the saved one".
 * The feed and the profile also save it on the server (issue 10: the intent in view survives a reload).
 */
export const selectedIntentAtom = atom<Intent | null>(null);

const mirroredIntentAtom = atom<Intent | null>(null);

/**
 * The signed-in user's saved intent, mirrored from their user query once it is loaded; until then
 * the copy cached for that user by the last mirror (so a reload starts in the saved intent).
 */
export const savedIntentAtom = atom(
  (get) => get(mirroredIntentAtom) ?? readCachedIntent(get(sessionAtom)?.userId),
  (get, set, intent: Intent | null) => {
    set(mirroredIntentAtom, intent);
    if (intent) writeCachedIntent(get(sessionAtom)?.userId, intent);
  },
);

/** The intent the app shows: picked in this tab, else saved, else the default (romantic). */
export const currentIntentAtom = atom<Intent>(
  (get) => get(selectedIntentAtom) ?? get(savedIntentAtom) ?? DEFAULT_INTENT,
);
