import { atom } from 'jotai';

/**
 * Result of validating the stored session with GET /api/users/:id. It belongs to one user id, so a
 * check of a previous session never counts for a new one. No entry for the current id = unknown.
 */
export interface AuthCheck {
  userId: number;
  state: 'valid' | 'unreachable';
}

export const authCheckAtom = atom<AuthCheck | null>(null);
