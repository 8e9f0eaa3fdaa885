import { INTENT_INFO, type Intent } from '@shared/constants';
import type { SelfUser } from '@shared/schemas/user';
import { LogOut } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { Spinner } from '@/components/ui/spinner';
import { AvatarEditor } from './avatar-editor';
import { ProfileInfoCard } from './profile-info-card';
import { QuizCard } from './quiz-card';
import { useSwipeLeft } from './use-swipe-left';
import { VideoIntroSlot } from './video-intro-slot';
import { YourDataCard } from './your-data-card';

/** The tagline shown for an intent, or its SPEC fallback ('No dating tagline set', ...). */
export function taglineFor(user: SelfUser, intent: Intent): string {
  const info = INTENT_INFO[intent];
  return user[info.taglineField]?.trim() || info.missingTagline;
}

interface ProfileScreenProps {
  /** Undefined while loading. */
  user?: SelfUser;
  /** The user could not be loaded: 'User not found' / 'Please try again later'. */
  failed?: boolean;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
  intentSaving?: boolean;
  onLogout: () => void;
  loggingOut?: boolean;
  /** Cards composed by the route: the streaming connection and 'My Top Podcasts', shown after the quiz. */
  children?: ReactNode;
  /** A swipe left of more than 100 px (SPEC: goes to the feed). */
  onSwipeLeft?: () => void;
}

/** Own profile (/profile, SPEC section 2). */
export function ProfileScreen({
  user,
  failed,
  intent,
  onIntentChange,
  intentSaving,
  onLogout,
  loggingOut,
  children,
  onSwipeLeft,
}: ProfileScreenProps) {
  const swipe = useSwipeLeft(() => onSwipeLeft?.());
  const logout = (
    <Button variant="destructive" className="w-full" onClick={onLogout} disabled={loggingOut}>
      {loggingOut ? <Spinner /> : <LogOut aria-hidden="true" className="size-4" />}
      Log out
    </Button>
  );

  let body: ReactNode;
  if (user) {
    body = (
      <>
        <header className="flex min-w-0 items-center gap-5">
          <AvatarEditor user={user} />
          <div className="min-w-0 flex-1">
            <h1
              data-testid="user-display-name"
              title={user.displayName}
              className="truncate text-2xl font-bold tracking-tight text-white"
            >
              {user.displayName}
            </h1>
            <p data-testid="profile-tagline" className="line-clamp-2 break-words text-sm text-zinc-300">
              {taglineFor(user, intent)}
            </p>
            <p title={`@${user.username}`} className="truncate text-xs text-zinc-300">
              @{user.username}
            </p>
          </div>
        </header>
        <ProfileInfoCard key={user.id} user={user} />
        <VideoIntroSlot />
        <QuizCard user={user} />
        {children}
        <YourDataCard user={user} />
      </>
    );
  } else if (failed) {
    body = (
      <div role="alert" className="rounded-3xl border border-white/10 bg-white/[0.03] p-6 text-center">
        <h1 className="text-lg font-semibold text-white">User not found</h1>
        <p className="mt-1 text-sm text-zinc-300">Please try again later</p>
      </div>
    );
  } else {
    body = (
      <div className="grid place-items-center py-10" role="status" aria-label="Loading profile">
        <Spinner className="size-6 text-zinc-300" />
      </div>
    );
  }

  return (
    // pan-y: the browser scrolls vertically only, so a horizontal drag reaches the swipe handler.
    <div data-testid="profile-screen" className="grid min-w-0 touch-pan-y gap-6" {...swipe}>
      <IntentSwitcher value={intent} onChange={onIntentChange} disabled={intentSaving || !user} />
      {body}
      {logout}
    </div>
  );
}
