import { createStore } from 'jotai';

/**
 * The app's jotai store. Non-React code (fetch wrapper, socket handlers, toast()) writes atoms
 * through it; the app mounts it in <Provider store={appStore}>.
 */
export const appStore = createStore();
