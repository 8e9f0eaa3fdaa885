import { TOAST } from '@shared/constants';
import { atom, useAtomValue } from 'jotai';
import { appStore } from './store';

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Milliseconds before it closes itself; SPEC default 5000. */
  duration?: number;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
}

/** Visible toasts, newest first, at most TOAST.limit (1): a new toast replaces the current one. */
export const toastsAtom = atom<ToastItem[]>([]);

let counter = 0;

export function toast(input: ToastInput, store = appStore): { id: string; dismiss: () => void } {
  counter += 1;
  const id = `toast-${counter}`;
  store.set(toastsAtom, (current) => [{ ...input, id, open: true }, ...current].slice(0, TOAST.limit));
  return { id, dismiss: () => dismissToast(id, store) };
}

/** Closes a toast; it stays in the list closed (so Radix can animate it out) until replaced. */
export function dismissToast(id?: string, store = appStore): void {
  store.set(toastsAtom, (current) => current.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
}

export function useToast() {
  const toasts = useAtomValue(toastsAtom);
  return { toasts, toast, dismiss: dismissToast };
}
