import { Clapperboard } from 'lucide-react';
import { ProfileCard } from './profile-card';

/** Where the video intro card goes (AI generation and upload tabs, SPEC section 2): a later issue fills it. */
export function VideoIntroSlot() {
  return (
    <ProfileCard icon={Clapperboard} title="Video intro" testId="video-intro-card">
      <p className="text-sm text-zinc-300">
        Video intros arrive soon: you will be able to upload a clip of up to 30 seconds, or have one generated from your
        profile and podcasts.
      </p>
    </ProfileCard>
  );
}
