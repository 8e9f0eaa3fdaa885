import { INTENTS, type Intent } from '@shared/constants';
import { useSetAtom } from 'jotai';
import { useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { selectedIntentAtom } from '@/lib/intent';

export interface HashTarget {
  path: string;
  intent: Intent | null;
}

/**
 * Reads a shared-link hash such as `#matchedUserId=12&matchId=3&intent=platonic` (SPEC section 2).
 * Returns where to go, or null when the hash carries no matchedUserId.
 */
export function hashTarget(hash: string): HashTarget | null {
  const raw = hash.replace(/^#\/?\??/, '');
  if (!raw) return null;
  const params = new URLSearchParams(raw);
  const matchedUserId = params.get('matchedUserId')?.trim();
  if (!matchedUserId) return null;
  const matchId = params.get('matchId')?.trim();
  const intentValue = params.get('intent');
  const intent = INTENTS.find((value) => value === intentValue) ?? null;
  const path = `/profile-details/${encodeURIComponent(matchedUserId)}${matchId ? `/${encodeURIComponent(matchId)}` : ''}`;
  return { path, intent };
}

/** Follows a shared-link hash; navigating to the new path also clears the hash. */
export function useHashRedirect(): void {
  const { hash } = useLocation();
  const navigate = useNavigate();
  const setIntent = useSetAtom(selectedIntentAtom);
  useEffect(() => {
    const target = hashTarget(hash);
    if (!target) return;
    if (target.intent) setIntent(target.intent);
    navigate(target.path, { replace: true });
  }, [hash, navigate, setIntent]);
}
