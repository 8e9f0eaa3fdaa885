import { ModerationScreen } from '@/features/moderation/moderation-screen';
import { NotFoundScreen } from '@/features/not-found/not-found-screen';
import { useCurrentUser } from '@/lib/user-queries';

/**
 * Moderation (/moderation): moderators and admins only. Everyone else sees the screen of a page that
 * does not exist, as the server answers them 404 on every moderation route.
 */
export default function ModerationRoute() {
  const user = useCurrentUser();
  if (!user?.role) return <NotFoundScreen />;
  return <ModerationScreen role={user.role} userId={user.id} />;
}
