import { MatchesPlaceholder } from '@/features/matches/matches-placeholder';
import { useCurrentIntent } from '@/features/user/user-queries';

export default function MatchesRoute() {
  const [intent, setIntent] = useCurrentIntent();
  return <MatchesPlaceholder intent={intent} onIntentChange={setIntent} />;
}
