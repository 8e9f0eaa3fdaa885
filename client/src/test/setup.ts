import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { authCheckAtom } from '@/lib/auth-check';
import { savedIntentAtom, selectedIntentAtom } from '@/lib/intent';
import { reloadSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { forgetSuspension } from '@/lib/suspension';
import { toastsAtom } from '@/lib/toast';

// Lazy route chunks load slowly when the machine is busy (CI runs tiers back to back).
configure({ asyncUtilTimeout: 5000 });

// Every test starts from empty storage and a fresh app state in the shared jotai store.
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
  sessionStorage.clear();
  appStore.set(toastsAtom, []);
  appStore.set(selectedIntentAtom, null);
  appStore.set(savedIntentAtom, null);
  appStore.set(authCheckAtom, null);
  forgetSuspension(appStore);
  reloadSession(appStore);
});
