import { mutualMatchToast } from '@shared/constants';
import type { MatchView } from '@shared/schemas/matches';
import { toast } from '@/lib/toast';

// Match ids already announced in this tab: the like's answer and the 'match:new' event both
// report the same match, and the toast shows once.
const announced = new Set<number>();

/** Shows the intent's mutual-match toast (SPEC section 4) once per match id; true if it showed. */
export function announceMutualMatch(match: Pick<MatchView, 'id' | 'intent' | 'isMutualMatch'>): boolean {
  if (!match.isMutualMatch || announced.has(match.id)) return false;
  announced.add(match.id);
  toast(mutualMatchToast(match.intent));
  return true;
}

/** Tests only: forgets the announced ids. */
export function resetAnnouncedMatches(): void {
  announced.clear();
}
