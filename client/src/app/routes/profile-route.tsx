import { api } from '@shared/api';
import { isSelfUser } from '@shared/schemas/user';
import { useQuery } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { lazy, Suspense } from 'react';
import { useNavigate } from 'react-router-dom';
import { useLogout } from '@/features/auth/use-logout';
import { BlueskyLinkCard } from '@/features/bluesky/bluesky-link-card';
import { ModerationLink } from '@/features/moderation/moderation-link';
import { NotificationsCard } from '@/features/notifications';
import { ProfileScreen } from '@/features/profile/profile-screen';
import { SignInWaysCard } from '@/features/sign-in-ways';
import { SpotifyConnectionCard } from '@/features/spotify/spotify-connection-card';
import { endpointQuery } from '@/lib/api-client';
import { sessionAtom } from '@/lib/session';
import { userQuery, useSaveIntent } from '@/lib/user-queries';

// Its own chunk: the header renders without waiting for the library code (search, upload, socket).
const PodcastLibrarySection = lazy(() =>
  import('@/features/podcasts/podcast-library-section').then((m) => ({ default: m.PodcastLibrarySection })),
);

/** Own profile (/profile): changing the intent here also saves it on the server. */
export default function ProfileRoute() {
  const session = useAtomValue(sessionAtom);
  const query = useQuery({ ...userQuery(session?.userId ?? 0), enabled: session !== null });
  const user = query.data && isSelfUser(query.data) ? query.data : undefined;
  const { intent, save, isSaving } = useSaveIntent();
  const { logout, isPending } = useLogout();
  const navigate = useNavigate();
  // Which ways in this server can add (the login screen reads the same answer).
  const methods = useQuery({ ...endpointQuery(api.signInMethods, {}), staleTime: 5 * 60_000 }).data;
  return (
    <ProfileScreen
      user={user}
      failed={!user && (query.isError || query.isSuccess)}
      intent={intent}
      onIntentChange={save}
      intentSaving={isSaving}
      onLogout={() => void logout()}
      loggingOut={isPending}
      onSwipeLeft={() => navigate('/')}
    >
      {user?.role ? <ModerationLink role={user.role} /> : null}
      {user ? <SpotifyConnectionCard userId={user.id} /> : null}
      {user ? <BlueskyLinkCard userId={user.id} /> : null}
      {user ? <NotificationsCard userId={user.id} /> : null}
      {user ? (
        <SignInWaysCard userId={user.id} passkeys={Boolean(methods?.passkey)} email={Boolean(methods?.email)} />
      ) : null}
      {user ? (
        <Suspense fallback={null}>
          <PodcastLibrarySection userId={user.id} />
        </Suspense>
      ) : null}
    </ProfileScreen>
  );
}
