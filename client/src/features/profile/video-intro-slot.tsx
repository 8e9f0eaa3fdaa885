import { Clapperboard } from 'lucide-react';
import { Spinner } from '@/components/ui/spinner';
import { VideoIntroPanel } from '@/features/videos';
import { useCurrentIntent, useCurrentUser } from '@/lib/user-queries';
import { ProfileCard } from './profile-card';

/** The own profile's video intro card: AI generation and upload tabs (SPEC section 2). */
export function VideoIntroSlot() {
  const user = useCurrentUser();
  const [intent] = useCurrentIntent();
  return (
    <ProfileCard icon={Clapperboard} title="Video intro" testId="video-intro-card">
      {user ? (
        // Keyed by user: a different account never sees the previous one's project.
        <VideoIntroPanel key={user.id} userId={user.id} intent={intent} />
      ) : (
        <div className="grid place-items-center py-6" role="status" aria-label="Loading video intro">
          <Spinner className="size-5 text-zinc-300" />
        </div>
      )}
    </ProfileCard>
  );
}
