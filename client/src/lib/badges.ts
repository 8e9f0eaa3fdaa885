import type { BadgeCounts } from '@shared/events';
import { atom } from 'jotai';

const zero = () => ({ romantic: 0, platonic: 0, professional: 0 });

export const EMPTY_BADGES: BadgeCounts = { feed: zero(), unreadMatches: zero() };

/** Bottom-navigation badge counts, pushed by the server's 'badges:update' socket event. */
export const badgesAtom = atom<BadgeCounts>(EMPTY_BADGES);
