import { lazy, Suspense } from 'react';
import { useNavigate } from 'react-router-dom';
import { useLogout } from '@/features/auth/use-logout';
import { ProfilePlaceholder } from '@/features/profile/profile-placeholder';
import { SpotifyConnectionCard } from '@/features/spotify/spotify-connection-card';
import { useCurrentUser, useSaveIntent } from '@/lib/user-queries';

// Its own chunk: the header renders without waiting for the library code (search, upload, socket).
const PodcastLibrarySection = lazy(() =>
  import('@/features/podcasts/podcast-library-section').then((m) => ({ default: m.PodcastLibrarySection })),
);

/** Own profile (/profile): changing the intent here also saves it on the server. */
export default function ProfileRoute() {
  const user = useCurrentUser();
  const { intent, save, isSaving } = useSaveIntent();
  const { logout, isPending } = useLogout();
  const navigate = useNavigate();
  return (
    <ProfilePlaceholder
      user={user}
      intent={intent}
      onIntentChange={save}
      intentSaving={isSaving}
      onLogout={() => void logout()}
      loggingOut={isPending}
      onSwipeLeft={() => navigate('/')}
    >
      {user ? <SpotifyConnectionCard userId={user.id} /> : null}
      {user ? (
        <Suspense fallback={null}>
          <PodcastLibrarySection userId={user.id} />
        </Suspense>
      ) : null}
    </ProfilePlaceholder>
  );
}
