import { useAtomValue } from 'jotai';
import { MatchesScreen } from '@/features/matches/matches-screen';
import { sessionAtom } from '@/lib/session';
import { useCurrentIntent } from '@/lib/user-queries';

/** Matches (/matches): the intent changes locally only, like on the feed. */
export default function MatchesRoute() {
  const session = useAtomValue(sessionAtom);
  const [intent, setIntent] = useCurrentIntent();
  if (!session) return null;
  return <MatchesScreen userId={session.userId} intent={intent} onIntentChange={setIntent} />;
}
