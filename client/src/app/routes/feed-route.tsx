import { FeedPlaceholder } from '@/features/feed/feed-placeholder';
import { useCurrentIntent, useCurrentUser } from '@/features/user/user-queries';

/** Feed (/): on the feed the intent changes locally only (SPEC section 4). */
export default function FeedRoute() {
  const user = useCurrentUser();
  const [intent, setIntent] = useCurrentIntent();
  return <FeedPlaceholder displayName={user?.displayName} intent={intent} onIntentChange={setIntent} />;
}
