import { FeedScreen } from '@/features/feed/feed-screen';
import { useCurrentIntent, useCurrentUser } from '@/lib/user-queries';

/** Feed (/): on the feed the intent changes locally only (SPEC section 4). */
export default function FeedRoute() {
  const user = useCurrentUser();
  const [intent, setIntent] = useCurrentIntent();
  return <FeedScreen displayName={user?.displayName} intent={intent} onIntentChange={setIntent} />;
}
